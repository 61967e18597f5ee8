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
// Words. Paths and identifiers are split into words (db/pool7.go gives db,
// pool; ReadTimeout gives read, timeout), digits are stripped from word ends,
// and words are compared by their English (Porter2) stems. A file is related
// to the goal when the goal names it or the on-task work touched it, or when
// it sits beside one or shares a name stem with one.
//
// How the anchor learns. Only what connects to the goal is learned: an
// anchored call's object words and files join the anchor's at once. Any
// other call is learned when the user lets the work go on (a prompt:
// LearnRecent), or once it is ConfirmDelay (4) calls old, the window is on
// task and the work came back to the goal after it (a gradual widening of
// the work). An abrupt switch is never learned, however early it starts. In
// the first learn_calls (12) calls, reading the project is orientation (no
// evidence) and one shared word is enough; only a goal too short to measure
// against is taught by those calls whatever they are. Bookkeeping (todo
// lists, tasks, plan mode) is no evidence and no step of the window.
//
// When drift goes on after an advisory, OffGoal counts the off-goal calls
// until an on-goal call finds the work on task again; the hook repeats the
// advisory after the cooldown, firmer, with that count.
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
