// Package report renders what the read-only commands show of a session:
// /djinn:status, /djinn:rank and djinn log. It reads a session's files through
// package state and never changes them; it is not on the hook path.
package report
