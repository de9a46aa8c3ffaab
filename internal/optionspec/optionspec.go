// Package optionspec owns how the front doors name the engine's options: each field of
// render.Options with its functionConfig name, CLI flag, allowed values, default and help,
// read from the field's tags (`json`, `flag`, `enum`, `default`, `help`), and the errors that
// name an option by those names; an option renamed keeps its former names (`formerly`). The CLI builds its flags from the list, the KRM function
// its functionConfig fields, the docs their tables; render.Options.Validate reports with it.
// It knows nothing of what the options do.
package optionspec

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/odlm-render/odlm-render/internal/suggest"
)

// Option describes one field of an options struct as the front doors name it.
type Option struct {
	Field string   // the Go field, e.g. BindInfoSecrets
	JSON  string   // the functionConfig field, e.g. bindinfoSecrets
	Flag  string   // the CLI flag without dashes, e.g. bindinfo-secrets
	Enum  []string // the allowed values of a string option ("" always means the default)
	// Default is the value "" stands for ("" when none); Help says what the option does
	Default, Help string
	// FormerJSON and FormerFlag are the names the option had before (tag `formerly:"json,flag"`):
	// the front doors still accept them, saying the new name
	FormerJSON, FormerFlag string
}

// Of lists the options of struct type T that the front doors set (the fields with a `json`
// name), in declaration order.
func Of[T any]() []Option { return List(reflect.TypeFor[T]()) }

// List is Of for a struct type given as a reflect.Type.
func List(t reflect.Type) []Option {
	var out []Option
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || name == "" {
			continue
		}
		o := Option{Field: f.Name, JSON: name, Flag: f.Tag.Get("flag"), Default: f.Tag.Get("default"), Help: f.Tag.Get("help")}
		if e := f.Tag.Get("enum"); e != "" {
			o.Enum = strings.Split(e, ",")
		}
		o.FormerJSON, o.FormerFlag, _ = strings.Cut(f.Tag.Get("formerly"), ",")
		out = append(out, o)
	}
	return out
}

// Error is an option value the engine refuses.
type Error struct {
	Option Option
	Value  string
	Msg    string
}

func (e *Error) Error() string {
	return fmt.Sprintf("option %s (--%s): %s", e.Option.JSON, e.Option.Flag, e.Msg)
}

// CheckEnums checks that every enumerated option of opts (a struct whose options are list)
// holds one of its values or "" (a misspelt value must never fall back to the default), with
// an *Error for each that does not, naming the nearest allowed value.
func CheckEnums(opts any, list []Option) []error {
	v := reflect.ValueOf(opts)
	var errs []error
	for _, opt := range list {
		if len(opt.Enum) == 0 {
			continue
		}
		value := v.FieldByName(opt.Field).String()
		if value == "" || slices.Contains(opt.Enum, value) {
			continue
		}
		msg := fmt.Sprintf("%q is not one of %s", value, strings.Join(opt.Enum, ", "))
		if near, ok := suggest.Closest(value, opt.Enum); ok {
			msg += fmt.Sprintf(" (did you mean %q?)", near)
		}
		errs = append(errs, &Error{Option: opt, Value: value, Msg: msg})
	}
	return errs
}

// ErrorOf is an *Error about the option of field in list. A field without an option is a bug
// of the caller: it panics.
func ErrorOf(list []Option, field, value, msg string) error {
	for _, opt := range list {
		if opt.Field == field {
			return &Error{Option: opt, Value: value, Msg: msg}
		}
	}
	panic("optionspec: no option has the field " + field)
}

// Errors returns the *Errors an error joins (errors.Join, as Validate returns them).
func Errors(err error) []*Error {
	var out []*Error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			var oe *Error
			if errors.As(e, &oe) {
				out = append(out, oe)
			}
		}
	}
	return out
}
