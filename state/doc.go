// Package state is Djinn's store: where state lives, how it is locked, and
// how it is read and written so that no hook ever sees a torn or invalid
// file.
//
// Layout under the root (see [ResolveRoot]):
//
//	config.json              optional user settings (read by package settings)
//	posteriors.json          D5 posteriors, keyed "<intent_type>::<developer key>"
//	learnings.jsonl          one line per finished session (append-only)
//	profile.json             the developer's feedback, keyed "<kind>::<developer key>"
//	lock                     lock for the global files above
//	sessions/<id>/
//	    anchor.json          goal, intent type, constraint deltas, pivots
//	    reservoir.json       D3 sample and n_seen
//	    window.json          bounded recent state of every detector
//	    turns.jsonl          one line per tool call
//	    advisories.jsonl     everything Djinn said, with its numbers
//	    archive/             what /djinn:reorient replaced
//	    outputs/             the newest full outputs Djinn shortened
//	    lock                 the session's lock file (never the data files)
//
// Rules the package enforces: session ids are plain ids; whole-file writes go
// through renameio with the temporary file beside the target; appends use
// O_APPEND under the session lock; every JSON file carries schema_version and
// is checked on every load, decoded strictly into its Go type by
// encoding/json and held by the type's Validate method to its embedded JSON
// Schema (draft 2020-12; the documented contract); a file that fails is
// moved aside as <name>.corrupt-<time> and reported once;
// a torn last JSONL line is skipped and reported; files are created 0600 and
// directories 0700. No path below the root is resolved through a link
// (fsafe.go): a link, FIFO or device where state belongs is moved aside and
// reported, never written or deleted through, and only regular files Djinn
// made are ever deleted (prune.go).
//
// An update that spans files commits in one of them, which carries what the
// others still need (a redo record), and is finished under the lock by the
// next reader: window.json carries the lines its hook appends
// (Window.Logged) and the anchor it changed (Window.PendingAnchor);
// posteriors.json carries the sessions it learned and the last learnings
// line (Posteriors.Learned, Posteriors.Logged).
package state
