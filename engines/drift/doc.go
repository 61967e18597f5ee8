// Package drift is Djinn's drift detector (seed 003, with the original's
// defects fixed): it scores how visibly each main-agent tool call is about
// the session's goal, learns the goal's vocabulary from the on-task work,
// and turns the score, the threshold and the task-state model's tail into a
// verdict with its confidence interval. It is pure: no I/O, no clock; the
// hook keeps State in window.json and words the advisory.
//
// The score. What the agent authors and touches on each tool call (see
// Extract) is compared with the effective anchor: the goal's words, the
// words of the constraint deltas the user added, and the vocabulary and
// files the session itself taught it. A call is anchored when it touches a
// file the on-task work touched, or when its words meet the anchor's (two
// points: a word of the user's own counts two, a learned word one); it is
// neutral when it has no words or files at all. The drift score is the
// share of anchored calls among the last signal_window non-neutral calls,
// so the seed's numbers keep a plain meaning: 0.7 is "seven calls in ten
// are visibly about the goal", 0.4 "fewer than half are".
//
// How the anchor learns. The first learn_calls (12) main-agent calls after an
// anchor is set are the agent finding its way into the task: their words
// and files are learned at once. After that a call is learned only once it is
// ConfirmDelay (4) calls old and the window is still on task, so a gradual
// widening of the work is absorbed but an abrupt switch to other work is not
// (its calls never see an on-task window). A user prompt confirms the recent
// work too (LearnRecent): whatever the user saw and let continue is learned.
//
// The HMM (D2) sees each call as "<tool class>|<topic>", where the topic is
// anchored, unanchored or neutral: file membership and word overlap, never
// the drift score itself (the original fed D2 with D1's score, which made it
// circular). Its emission table is fixed and informed (an unanchored call is
// likelier when lost than on task): the seed's re-estimation of B from a
// uniform start can never label a step LOST, and re-estimating an informed
// table washes its meaning out (engines/hmm's tests show both).
//
// The reservoir (D3) samples the window score of every main-agent call since
// the anchor; its bootstrap CI is the "honest numbers" of every verdict, and
// its mean is what SessionEnd teaches the developer's posterior (D5), whose
// p10 becomes the on-task threshold (Threshold).
package drift
