// Package report prints what a benchmark child measured: one JSON line on
// stdout with its wall time and its peak resident set size.
package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Result is what a child prints.
type Result struct {
	WallMS   float64 `json:"wall_ms"`
	PeakKB   int64   `json:"peak_kb"`
	Packages int     `json:"packages"`
	Bundles  int     `json:"bundles"`
}

// Print prints the result of work started at start. The peak is VmHWM of
// /proc/self/status: the high-water mark of this process's own memory
// (getrusage's ru_maxrss would also count the parent's memory at exec time
// on Linux).
func Print(start time.Time, packages, bundles int) {
	wall := time.Since(start)
	r := Result{WallMS: float64(wall.Microseconds()) / 1000, PeakKB: vmHWM(), Packages: packages, Bundles: bundles}
	if err := json.NewEncoder(os.Stdout).Encode(r); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func vmHWM() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err == nil {
				return n
			}
		}
	}
	return -1
}

// Fail prints an error and exits.
func Fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
