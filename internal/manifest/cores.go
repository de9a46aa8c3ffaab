package manifest

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// onCores calls f(i) for every i in [0, n) on every core, each index once, and returns when
// all calls have. f writes only to its own index's slots, so results do not depend on
// scheduling.
func onCores(n int, f func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				f(i)
			}
		})
	}
	wg.Wait()
}
