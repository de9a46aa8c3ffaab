// Package fileread owns reading the files and streams a user names: only regular files
// (after resolving symbolic links), never devices, FIFOs or sockets, and never more than a
// size cap. A render is handed paths by people it must not trust (a tenant's repository
// behind a shared Argo CD plugin, an item annotation from a KRM orchestrator): a link to
// /dev/zero or a FIFO named x.yaml must give an error naming the file, not exhaust memory
// or block forever.
//
// The cap is MaxBytes: DefaultMaxBytes, or the size the environment variable EnvMaxBytes
// gives (set by whoever runs the process: a user, or the administrator of an Argo CD
// sidecar; never an Argo CD Application, whose variables are prefixed ARGOCD_ENV_).
package fileread

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// DefaultMaxBytes caps one file or stream when EnvMaxBytes is not set: far above any ODLM
// input or cluster export a render reads whole, far below what exhausts a machine's memory
// once decoded.
const DefaultMaxBytes int64 = 64 << 20

// EnvMaxBytes names the environment variable that changes the cap: a number of bytes with
// an optional Ki, Mi or Gi suffix (256Mi).
const EnvMaxBytes = "ODLM_RENDER_MAX_FILE_SIZE"

// DefaultMaxTotalBytes caps, when EnvMaxTotalBytes is not set, the sum of the files one read
// of PATHs takes in (a Budget): as much as one file may hold, so that many files cost no more
// than the largest one may.
const DefaultMaxTotalBytes int64 = 64 << 20

// EnvMaxTotalBytes names the environment variable that changes the total cap, read as
// EnvMaxBytes is.
const EnvMaxTotalBytes = "ODLM_RENDER_MAX_TOTAL_SIZE"

// MaxTotalBytes is the cap on the files of one Budget: EnvMaxTotalBytes when it holds a valid
// size, else DefaultMaxTotalBytes.
func MaxTotalBytes() int64 {
	if n, err := ParseSize(os.Getenv(EnvMaxTotalBytes)); err == nil && n > 0 {
		return n
	}
	return DefaultMaxTotalBytes
}

// Budget bounds what a sequence of reads takes in together (the files of a render's PATHs,
// of its snapshots), as MaxBytes bounds each: every read is capped at what is left. A Budget
// is not safe for concurrent use.
type Budget struct {
	limit, used int64
}

// NewBudget is a Budget of MaxTotalBytes.
func NewBudget() *Budget { return &Budget{limit: MaxTotalBytes()} }

// ReadFile is ReadFile within the budget.
func (b *Budget) ReadFile(path string) ([]byte, error) {
	data, err := ReadFileMax(path, min(MaxBytes(), b.limit-b.used))
	return b.take(path, data, err)
}

// ReadAll is ReadAll within the budget.
func (b *Budget) ReadAll(name string, r io.Reader) ([]byte, error) {
	data, err := readMax(name, r, min(MaxBytes(), b.limit-b.used))
	return b.take(name, data, err)
}

// take counts what a read took in, and turns a file over what was left (but not over the
// per-file cap) into a TotalTooLargeError.
func (b *Budget) take(name string, data []byte, err error) ([]byte, error) {
	var tl *TooLargeError
	if errors.As(err, &tl) && tl.Limit < MaxBytes() {
		return nil, &TotalTooLargeError{Name: name, Limit: b.limit}
	}
	if err != nil {
		return nil, err
	}
	b.used += int64(len(data))
	return data, nil
}

// TotalTooLargeError is a read that takes a Budget's files over its cap.
type TotalTooLargeError struct {
	Name  string
	Limit int64
}

func (e *TotalTooLargeError) Error() string {
	return fmt.Sprintf("%s: the files read so far and this one hold more than %s together, the cap on all the inputs of one read (%s sets it)", e.Name, ByteSize(e.Limit), EnvMaxTotalBytes)
}

// MaxBytes is the cap on one file or stream: EnvMaxBytes when it holds a valid size, else
// DefaultMaxBytes (a malformed value is reported by CheckEnv, at start-up).
func MaxBytes() int64 {
	if n, err := ParseSize(os.Getenv(EnvMaxBytes)); err == nil && n > 0 {
		return n
	}
	return DefaultMaxBytes
}

// CheckEnv reports a malformed EnvMaxBytes, so that a typo is an error rather than a cap
// silently left at its default.
func CheckEnv() error {
	for _, name := range []string{EnvMaxBytes, EnvMaxTotalBytes} {
		v := os.Getenv(name)
		if v == "" {
			continue
		}
		if n, err := ParseSize(v); err != nil || n <= 0 {
			return fmt.Errorf("%s=%q: want a positive size in bytes, optionally with a Ki, Mi or Gi suffix (256Mi)", name, v)
		}
	}
	return nil
}

// ParseSize reads "1048576", "512Ki", "64Mi" or "2Gi".
func ParseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	mult := int64(1)
	for suffix, m := range map[string]int64{"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30} {
		if strings.HasSuffix(s, suffix) {
			s, mult = strings.TrimSuffix(s, suffix), m
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, err
	}
	if n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("size %s out of range", s)
	}
	return n * mult, nil
}

// TooLargeError is a file or stream over the cap.
type TooLargeError struct {
	Name  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: larger than %s, the most odlm-render reads from one file (raise it with %s=SIZE, e.g. %s=512Mi)", e.Name, FormatSize(e.Limit), EnvMaxBytes, EnvMaxBytes)
}

// NotRegularError is a path that is not a regular file once links are resolved.
type NotRegularError struct {
	Name string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s: not a regular file (%s): odlm-render reads only regular files", e.Name, DescribeMode(e.Mode))
}

// DescribeMode names a file type for a message: "a folder", "a FIFO", "a character device".
func DescribeMode(m fs.FileMode) string {
	switch {
	case m&fs.ModeDir != 0:
		return "a folder"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}

// ByteSize writes a limit for a message: "64 MiB", "1 GiB", "1000 bytes" (every package
// that names a size limit says it this way).
func ByteSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// FormatSize writes a size the way ParseSize reads it, in the largest exact unit.
func FormatSize(n int64) string {
	for _, u := range []struct {
		suffix string
		size   int64
	}{{"Gi", 1 << 30}, {"Mi", 1 << 20}, {"Ki", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// Open opens path for reading if it is a regular file once symbolic links are resolved. It
// opens without blocking (a FIFO would block until a writer comes) and checks the opened
// file, not the path, so that a link swapped between a check and the open changes nothing.
func Open(path string) (*os.File, error) {
	f, err := OpenNonBlocking(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		_ = f.Close()
		return nil, &NotRegularError{Name: path, Mode: fi.Mode()}
	}
	return f, nil
}

// ReadFile reads a regular file of at most MaxBytes.
func ReadFile(path string) ([]byte, error) {
	return ReadFileMax(path, MaxBytes())
}

// ReadFileMax reads a regular file of at most limit bytes.
func ReadFileMax(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > limit {
		return nil, &TooLargeError{Name: path, Limit: limit}
	}
	return readMax(path, f, limit)
}

// ReadAll reads a stream (stdin) of at most MaxBytes; name is used in errors.
func ReadAll(name string, r io.Reader) ([]byte, error) {
	return readMax(name, r, MaxBytes())
}

func readMax(name string, r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &TooLargeError{Name: name, Limit: limit}
	}
	return data, nil
}

// IsLimit reports an error of this package: a file that is not regular or too large.
func IsLimit(err error) bool {
	var tl *TooLargeError
	var nr *NotRegularError
	var total *TotalTooLargeError
	return errors.As(err, &tl) || errors.As(err, &nr) || errors.As(err, &total)
}
