// Package merge owns the deep merge ODLM applies when it combines a
// default custom resource (an alm-example from the CSV, or an
// OperandConfig spec) with the values a user asked for (MergeCR in ODLM).
//
// Values are JSON-like trees: map[string]any, []any, string, bool, nil
// and encoding/json.Number. Nothing in this package mutates its inputs
// or panics: the inputs for which ODLM panics produce an *Error instead.
//
// The package also provides DeepCopy and a numeric-aware Equal, which
// follow the same value model and are shared with the rest of the
// project.
package merge
