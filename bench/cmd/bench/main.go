// Command bench compares, in one run, odlm-render's catalog extract with
// operator-registry's declcfg.LoadFS + ConvertToModel (v1.73.0) on the real
// community and certified v4.20 catalogs and on a synthetic copy of them N
// times over (packages renamed), and prints a table and the ratios.
//
// Each measurement runs in its own child process (odlm-extract,
// declcfg-load), so that peaks do not mix; the peak is the child's VmHWM.
// Runs are interleaved and the median is reported.
//
//	go build -o BIN/ ./cmd/...   # in bench/
//	BIN/bench -bin BIN -shared ../../shared/catalogs
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/odlm-render/odlm-render/bench/internal/report"
)

func main() {
	bin := flag.String("bin", "", "folder holding the odlm-extract and declcfg-load binaries")
	shared := flag.String("shared", "../shared/catalogs", "folder holding community-v4.20 and certified-v4.20")
	copies := flag.Int("copies", 10, "copies in the synthetic catalog (0: none)")
	runs := flag.Int("runs", 3, "runs of each measurement (the median is reported)")
	pkgs := flag.String("packages", "kube-green,nvidia-network-operator,victoriametrics-operator", "the packages of the small extract")
	work := flag.String("work", "", "folder for the synthetic catalog and the snapshots (default: a temporary folder, removed)")
	old := flag.String("old", "", "also measure a catalog of the older shape (every bundle manifest an olm.bundle.object, such as community-operators-prod's catalogs/v4.16), whose bundle contents extract keeps")
	oldPkgs := flag.String("old-packages", "kube-green,shipwright-operator,ecr-secret-operator", "the packages of the small extract of -old")
	flag.Parse()
	if *bin == "" {
		fail(fmt.Errorf("-bin is required"))
	}
	dirs := []string{filepath.Join(*shared, "community-v4.20"), filepath.Join(*shared, "certified-v4.20")}
	for _, d := range dirs {
		if _, err := os.Stat(d); err != nil {
			fail(err)
		}
	}
	if *work == "" {
		tmp, err := os.MkdirTemp("", "odlm-bench-")
		if err != nil {
			fail(err)
		}
		defer os.RemoveAll(tmp)
		*work = tmp
	}
	small := strings.Split(*pkgs, ",")

	type dataset struct {
		name  string
		dirs  []string
		small []string
	}
	sets := []dataset{{name: fmt.Sprintf("real (2 folders, %s)", size(dirs...)), dirs: dirs, small: small}}
	if *copies > 0 {
		syn := filepath.Join(*work, "synthetic")
		start := time.Now()
		n, err := synthesize(dirs, syn, *copies)
		if err != nil {
			fail(err)
		}
		fmt.Fprintf(os.Stderr, "synthetic catalog: %d copies, %d package folders, %s, written in %s\n", *copies, n, size(syn), time.Since(start).Round(time.Millisecond))
		var synSmall []string
		mid := *copies / 2
		for _, p := range small {
			_, err := os.Stat(filepath.Join(dirs[0], p))
			synSmall = append(synSmall, p+suffix(err != nil, mid)) // the community copy, else the certified one
		}
		sets = append(sets, dataset{name: fmt.Sprintf("synthetic %dx (1 folder, %s)", *copies, size(syn)), dirs: []string{syn}, small: synSmall})
	}

	if *old != "" {
		sets = append(sets, dataset{name: fmt.Sprintf("older shape, contents kept (1 folder, %s)", size(*old)), dirs: []string{*old}, small: strings.Split(*oldPkgs, ",")})
	}

	out := filepath.Join(*work, "out")
	if err := os.MkdirAll(out, 0o755); err != nil {
		fail(err)
	}
	type tool struct {
		name string
		cmd  func(d dataset) []string
	}
	tools := []tool{
		{"odlm full extract", func(d dataset) []string {
			return append([]string{filepath.Join(*bin, "odlm-extract"), "-out", out}, d.dirs...)
		}},
		{"odlm 3-package extract", func(d dataset) []string {
			return append([]string{filepath.Join(*bin, "odlm-extract"), "-out", out, "-packages", strings.Join(d.small, ",")}, d.dirs...)
		}},
		{"declcfg LoadFS+ConvertToModel", func(d dataset) []string {
			return append([]string{filepath.Join(*bin, "declcfg-load")}, d.dirs...)
		}},
	}

	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "dataset\ttool\twall (median)\twall (min–max)\tpeak RSS (median)\tpackages\tbundles\t\n")
	var ratios []string
	ok := true
	for _, d := range sets {
		res := make([][]report.Result, len(tools))
		for r := 0; r < *runs; r++ {
			for i, t := range tools {
				args := t.cmd(d)
				fmt.Fprintf(os.Stderr, "run %d/%d: %s\n", r+1, *runs, strings.Join(args, " "))
				rr, err := runChild(args)
				if err != nil {
					fail(fmt.Errorf("%s: %w", t.name, err))
				}
				res[i] = append(res[i], rr)
			}
		}
		med := make([]report.Result, len(tools))
		mins := make([]float64, len(tools))
		for i, t := range tools {
			walls := make([]float64, 0, len(res[i]))
			peaks := make([]int64, 0, len(res[i]))
			for _, r := range res[i] {
				walls = append(walls, r.WallMS)
				peaks = append(peaks, r.PeakKB)
			}
			slices.Sort(walls)
			slices.Sort(peaks)
			mins[i] = walls[0]
			med[i] = report.Result{WallMS: walls[len(walls)/2], PeakKB: peaks[len(peaks)/2], Packages: res[i][0].Packages, Bundles: res[i][0].Bundles}
			fmt.Fprintf(tw, "%s\t%s\t%.2f s\t%.2f–%.2f s\t%.1f MB\t%d\t%d\t\n", d.name, t.name,
				med[i].WallMS/1000, walls[0]/1000, walls[len(walls)-1]/1000, float64(med[i].PeakKB)/1024, med[i].Packages, med[i].Bundles)
		}
		full, small, ref := med[0], med[1], med[2]
		speed := ref.WallMS / full.WallMS
		mem := float64(full.PeakKB) / float64(ref.PeakKB)
		ratios = append(ratios,
			fmt.Sprintf("%s: full extract %.1fx faster than declcfg (goal >= 5x; fastest runs: %.1fx), peak memory %.2f of declcfg's (goal < 0.25)",
				d.name, speed, mins[2]/mins[0], mem),
			fmt.Sprintf("%s: 3-package extract costs %.2f of a full extract's time and %.2f of its peak memory", d.name, small.WallMS/full.WallMS, float64(small.PeakKB)/float64(full.PeakKB)))
		if speed < 5 || mem >= 0.25 {
			ok = false
		}
		if full.Bundles != ref.Bundles || full.Packages != ref.Packages {
			ratios = append(ratios, fmt.Sprintf("%s: WARNING: the tools disagree on the content: %d/%d packages, %d/%d bundles",
				d.name, full.Packages, ref.Packages, full.Bundles, ref.Bundles))
		}
	}
	tw.Flush()
	fmt.Println()
	for _, r := range ratios {
		fmt.Println(r)
	}
	if !ok {
		fmt.Println("GOAL MISSED")
		os.Exit(3)
	}
}

func runChild(args []string) (report.Result, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return report.Result{}, fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	var r report.Result
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		return report.Result{}, fmt.Errorf("bad output %q: %w", stdout.String(), err)
	}
	return r, nil
}

func suffix(certified bool, copyIndex int) string {
	if certified {
		return fmt.Sprintf("-r%d", copyIndex)
	}
	return fmt.Sprintf("-c%d", copyIndex)
}

var (
	packageLine     = regexp.MustCompile(`^package: (\S+)$`)
	nameLine        = regexp.MustCompile(`^name: (\S+)$`)
	packageNameLine = regexp.MustCompile(`^(\s+packageName: )(\S+)$`)
)

// synthesize writes copies of the catalog folders into dst, every package
// renamed with a suffix per copy and folder (-c<i> community, -r<i>
// certified), so that the copies form one catalog. It works on the text of
// the files as opm writes them (one blob per "---" document, keys sorted,
// package names unquoted), so that the copies have the real layout.
func synthesize(srcs []string, dst string, copies int) (int, error) {
	dirs := 0
	for si, src := range srcs {
		entries, err := os.ReadDir(src)
		if err != nil {
			return 0, err
		}
		names := map[string]bool{}
		var pkgDirs []string
		for _, e := range entries {
			if e.IsDir() {
				pkgDirs = append(pkgDirs, e.Name())
			}
		}
		files := map[string][]byte{}
		for _, pd := range pkgDirs {
			matches, _ := filepath.Glob(filepath.Join(src, pd, "*"))
			for _, m := range matches {
				data, err := os.ReadFile(m)
				if err != nil {
					return 0, err
				}
				files[m] = data
				sc := bufio.NewScanner(bytes.NewReader(data))
				sc.Buffer(nil, 64<<20)
				for sc.Scan() {
					if g := packageLine.FindStringSubmatch(sc.Text()); g != nil {
						names[g[1]] = true
					}
				}
			}
		}
		for c := 0; c < copies; c++ {
			sfx := suffix(si == 1, c)
			for m, data := range files {
				rel, _ := filepath.Rel(src, m)
				parts := strings.SplitN(rel, string(filepath.Separator), 2)
				out := filepath.Join(dst, parts[0]+sfx, parts[1])
				if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
					return 0, err
				}
				if err := os.WriteFile(out, rename(data, names, sfx), 0o644); err != nil {
					return 0, err
				}
			}
			dirs += len(pkgDirs)
		}
	}
	return dirs, nil
}

// rename renames the packages of names in a YAML stream of blobs.
func rename(data []byte, names map[string]bool, sfx string) []byte {
	var out bytes.Buffer
	out.Grow(len(data) + len(data)/100)
	docs := bytes.SplitAfter(data, []byte("\n---\n"))
	for _, doc := range docs {
		isPackage := bytes.Contains(doc, []byte("\nschema: olm.package\n")) || bytes.HasPrefix(doc, []byte("schema: olm.package\n"))
		lines := bytes.SplitAfter(doc, []byte("\n"))
		for _, l := range lines {
			text := string(bytes.TrimSuffix(l, []byte("\n")))
			nl := len(text) < len(l)
			switch {
			case packageLine.MatchString(text) && names[packageLine.FindStringSubmatch(text)[1]]:
				text += sfx
			case isPackage && nameLine.MatchString(text) && names[nameLine.FindStringSubmatch(text)[1]]:
				text += sfx
			case packageNameLine.MatchString(text) && names[packageNameLine.FindStringSubmatch(text)[2]]:
				text += sfx
			}
			out.WriteString(text)
			if nl {
				out.WriteByte('\n')
			}
		}
	}
	return out.Bytes()
}

func size(paths ...string) string {
	var n int64
	for _, p := range paths {
		_ = filepath.Walk(p, func(_ string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() {
				n += fi.Size()
			}
			return nil
		})
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench:", err)
	os.Exit(1)
}
