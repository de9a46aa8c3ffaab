// Package crash is the front doors' last line of defence: it turns a panic into one
// internal-error message that says where it happened without carrying any value from the
// inputs (a panic message may quote object contents or Secret data; only the runtime's own
// messages, such as "index out of range [3] with length 0", are kept).
package crash

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
)

// modulePrefix marks this project's functions in stack frames.
const modulePrefix = "github.com/odlm-render/odlm-render/"

// Error is a recovered panic.
type Error struct {
	What  string // the runtime error message, or the panic value's type
	Where string // the innermost frame of this project, function and file:line
}

func (e *Error) Error() string {
	msg := "internal error: " + e.What
	if e.Where != "" {
		msg += " at " + e.Where
	}
	return msg + " (this is a bug in odlm-render, please report it with the command that shows it; no output was written)"
}

// FromPanic describes a recovered panic value; call it in the deferred function that
// recovered it, so that the stack still holds the panicking frame.
func FromPanic(p any) *Error {
	e := &Error{}
	var re runtime.Error
	if err, ok := p.(error); ok && errors.As(err, &re) {
		e.What = re.Error()
	} else {
		e.What = fmt.Sprintf("panic with a %T value", p)
	}
	pcs := make([]uintptr, 64)
	n := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.Function, modulePrefix) && !strings.Contains(f.Function, "/internal/crash.") {
			file := f.File
			if i := strings.Index(file, "odlm-render/"); i >= 0 {
				file = file[i+len("odlm-render/"):]
			}
			e.Where = fmt.Sprintf("%s (%s:%d)", strings.TrimPrefix(f.Function, modulePrefix), file, f.Line)
			break
		}
		if !more {
			break
		}
	}
	return e
}
