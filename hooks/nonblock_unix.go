//go:build unix

package hooks

import "syscall"

// nonblock keeps an open of a FIFO from blocking; callers check the mode
// first, this is the second line of defence.
const nonblock = syscall.O_NONBLOCK
