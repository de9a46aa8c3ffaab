// Command declcfg-load is the benchmark child for operator-registry: for each
// catalog folder given, declcfg.LoadFS then declcfg.ConvertToModel (one model
// per folder, all kept until the end), then one JSON line of measurements.
package main

import (
	"context"
	"flag"
	"os"
	"time"

	"github.com/operator-framework/operator-registry/alpha/declcfg"
	"github.com/operator-framework/operator-registry/alpha/model"

	"github.com/odlm-render/odlm-render/bench/internal/report"
)

func main() {
	flag.Parse()
	start := time.Now()
	var models []model.Model
	packages, bundles := 0, 0
	for _, dir := range flag.Args() {
		cfg, err := declcfg.LoadFS(context.Background(), os.DirFS(dir))
		if err != nil {
			report.Fail(err)
		}
		m, err := declcfg.ConvertToModel(*cfg)
		if err != nil {
			report.Fail(err)
		}
		for _, p := range m {
			packages++
			seen := map[string]bool{}
			for _, ch := range p.Channels {
				for name := range ch.Bundles {
					seen[name] = true
				}
			}
			bundles += len(seen)
		}
		models = append(models, m)
	}
	report.Print(start, packages, bundles)
	_ = models
}
