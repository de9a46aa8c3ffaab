//go:build unix

package collection

import "syscall"

// openFlags opens a FIFO without waiting for a writer (for a regular file, O_NONBLOCK does
// nothing).
const openFlags = syscall.O_NONBLOCK
