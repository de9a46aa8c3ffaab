package installed

import (
	"bytes"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
)

const none = "<none>"

// WriteTable prints items as the proposal's `kubectl get installed` table (NAME,
// INSTALLATION_NAMESPACE, CHANNEL, CURRENT_VERSION, TARGET_VERSION, PHASE), with a leading
// NAMESPACE column when withNamespace (as kubectl does for -A). Empty cells are "<none>"; a
// target version that cannot be told is "<unknown>".
func WriteTable(w io.Writer, items []Item, withNamespace bool) error {
	header := []string{"NAME", "INSTALLATION_NAMESPACE", "CHANNEL", "CURRENT_VERSION", "TARGET_VERSION", "PHASE"}
	rows := make([][]string, 0, len(items))
	for _, it := range items {
		target := it.TargetVersion
		if target == "" {
			target = "<unknown>"
		}
		rows = append(rows, []string{it.Name(), it.InstallationNamespace(), orNone(it.Channel()), orNone(it.CurrentVersion), target, orNone(it.Phase())})
	}
	if withNamespace {
		header = append([]string{"NAMESPACE"}, header...)
		for i, it := range items {
			rows[i] = append([]string{it.Namespace}, rows[i]...)
		}
	}
	return writeColumns(w, header, rows)
}

// WriteYAML prints the Installed objects of items as a "---" separated YAML stream.
func WriteYAML(w io.Writer, items []Item) (diag.Results, error) {
	var rs diag.Results
	objs := make([]*manifest.Object, 0, len(items))
	for _, it := range items {
		o, r := it.Object()
		rs = append(rs, r...)
		objs = append(objs, o)
	}
	return rs, manifest.WriteYAML(w, objs)
}

// WriteChecksTable prints checks as a table: NAMESPACE, NAME, STATUS, the rendered CHANNEL
// and PINNED startingCSV, the INSTALLED CSV and the DETAIL of the status.
func WriteChecksTable(w io.Writer, checks []Check) error {
	header := []string{"NAMESPACE", "NAME", "STATUS", "CHANNEL", "PINNED", "INSTALLED", "DETAIL"}
	rows := make([][]string, 0, len(checks))
	for _, c := range checks {
		rows = append(rows, []string{c.Namespace, c.Name, string(c.Status), orNone(c.Channel), orNone(c.Pin), orNone(c.InstalledCSV), strings.Join(c.Details, "; ")})
	}
	return writeColumns(w, header, rows)
}

// WriteChecksYAML prints checks as a YAML list (keys sorted; empty fields left out).
func WriteChecksYAML(w io.Writer, checks []Check) error {
	list := make([]any, 0, len(checks))
	for _, c := range checks {
		m := map[string]any{"namespace": c.Namespace, "name": c.Name, "status": string(c.Status), "drifted": c.Drifted}
		for k, v := range map[string]string{"channel": c.Channel, "pinnedCSV": c.Pin, "subscription": c.Subscription, "installedCSV": c.InstalledCSV, "phase": c.Phase} {
			if v != "" {
				m[k] = v
			}
		}
		if len(c.Details) > 0 {
			d := make([]any, len(c.Details))
			for i, s := range c.Details {
				d[i] = s
			}
			m["details"] = d
		}
		list = append(list, m)
	}
	b, err := manifest.MarshalYAML(list)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// writeColumns aligns columns as kubectl does (three spaces between columns).
func writeColumns(w io.Writer, header []string, rows [][]string) error {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 8, 3, ' ', 0)
	for _, r := range append([][]string{header}, rows...) {
		for i, cell := range r {
			r[i] = strings.NewReplacer("\t", " ", "\n", " ").Replace(cell)
		}
		if _, err := io.WriteString(tw, strings.Join(r, "\t")+"\n"); err != nil {
			return err
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// tabwriter pads the last column too when a later row is wider: trim line ends
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	_, err := io.WriteString(w, strings.Join(lines, "\n")+"\n")
	return err
}

func orNone(s string) string {
	if s == "" {
		return none
	}
	return s
}
