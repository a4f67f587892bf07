// repdiff: the pinned random source of the suite's testing/quick properties.
//
// robotstxt_test.go's expectAllAgents calls `quick.Check(f, nil)`, whose nil
// config seeds a fresh math/rand source from the clock on every call. The
// capture copy has that one call rewritten to
// `quick.Check(f, repdiffQuickConfig(t))`: the same generator, the same
// default count (-quickchecks, 100), only the seed fixed. Each call gets its
// own source, seeded from the test's name and how many properties that test
// has checked before, so the agents do not depend on the order the
// parallel tests happen to run in.
package robotstxt

import (
	"hash/fnv"
	"math/rand"
	"strconv"
	"sync"
	"testing"
	"testing/quick"
)

var (
	repdiffQuickMu    sync.Mutex
	repdiffQuickCalls = map[string]int{}
)

func repdiffQuickConfig(t *testing.T) *quick.Config {
	repdiffQuickMu.Lock()
	n := repdiffQuickCalls[t.Name()]
	repdiffQuickCalls[t.Name()] = n + 1
	repdiffQuickMu.Unlock()
	h := fnv.New64a()
	h.Write([]byte(t.Name() + "#" + strconv.Itoa(n)))
	return &quick.Config{Rand: rand.New(rand.NewSource(int64(h.Sum64() >> 1)))}
}
