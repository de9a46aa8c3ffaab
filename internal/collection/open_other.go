//go:build !unix

package collection

// openFlags: systems other than Unix have no FIFOs in folders.
const openFlags = 0
