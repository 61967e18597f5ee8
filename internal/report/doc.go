// Package report renders what the read-only commands show of a session:
// /djinn:status and /djinn:rank. It reads a session's files through
// package state and never changes them; it is not on the hook path.
package report
