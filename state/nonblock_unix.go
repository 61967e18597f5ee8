//go:build unix

package state

import "syscall"

// syscallNonblock opens files without blocking on a FIFO that has no writer;
// readers check the file mode first, this is the second line of defence.
const syscallNonblock = syscall.O_NONBLOCK
