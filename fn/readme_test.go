package main

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/golden"
	"github.com/odlm-render/odlm-render/internal/optionspec"
	"github.com/odlm-render/odlm-render/pkg/render"
)

// TestREADMEConfigTable keeps the RenderConfig reference in docs/krm-function.md (linked
// from the README) what the function reads: its own fields, then every engine option (go test
// ./fn -run TestREADMEConfigTable -update rewrites it).
func TestREADMEConfigTable(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("| `spec` field | ConfigMap key | value | meaning |\n|---|---|---|---|\n")
	row := func(field, key, value, help string) {
		fmt.Fprintf(&b, "| `%s` | `%s` | %s | %s |\n", field, key, strings.ReplaceAll(value, "|", `\|`), strings.ReplaceAll(help, "|", `\|`))
	}
	rows := 0
	for _, f := range reflect.VisibleFields(reflect.TypeOf(config{})) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if len(f.Index) > 1 || f.Anonymous || name == "" || name == "-" || f.Type.Kind() != reflect.Slice {
			continue
		}
		help := f.Tag.Get("help")
		require.NotEmpty(t, help, "field %s: add a help tag", f.Name)
		row(name, knownFields[name], "list of paths (ConfigMap: comma-separated)", help)
		rows++
	}
	opts := reflect.TypeOf(render.Options{})
	for _, o := range optionspec.Of[render.Options]() {
		f, ok := opts.FieldByName(o.Field)
		require.True(t, ok)
		value := "string"
		switch {
		case len(o.Enum) > 0:
			value = "`" + strings.Join(o.Enum, "|") + "`"
		case f.Type.Kind() == reflect.Bool:
			value = "`true` or `false`"
		case f.Type.Kind() == reflect.Slice:
			value = "list (ConfigMap: comma-separated)"
		}
		if o.Default != "" {
			value += fmt.Sprintf(" (default `%s`)", o.Default)
		}
		require.NotEmpty(t, o.Help, "option %s has no help", o.JSON)
		row(o.JSON, o.Flag, value, o.Help)
		rows++
	}
	require.Len(t, knownFields, rows, "every field the function reads is in the table")
	golden.Section(t, "../docs/krm-function.md", "RenderConfig fields", b.String())
}
