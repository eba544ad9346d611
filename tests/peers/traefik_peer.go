// Runs golang.org/x/time/rate (Debian's golang-golang-x-time-dev) exactly as Traefik's rateLimit
// middleware drives it (pkg/middlewares/ratelimiter/rate_limiter.go, Traefik v2 at commit
// 001e9aa: New() computes rtl, burst and maxDelay; ServeHTTP calls Reserve, Delay and Cancel),
// with time.Now() replaced by the arrival times (nanoseconds, one a line on stdin). Prints
// "1 DELAY_NS" when served (after DELAY_NS) or "0" for a 429.
// Usage: traefik_peer AVERAGE PERIOD_NS BURST < times_ns
package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/time/rate"
)

func main() {
	average, _ := strconv.ParseInt(os.Args[1], 10, 64)
	periodNs, _ := strconv.ParseInt(os.Args[2], 10, 64)
	burst, _ := strconv.ParseInt(os.Args[3], 10, 64)
	// New(): as Traefik writes it.
	if burst < 1 {
		burst = 1
	}
	period := time.Duration(periodNs)
	if period == 0 {
		period = time.Second
	}
	var maxDelay time.Duration
	var rtl float64
	if average > 0 {
		rtl = float64(average*int64(time.Second)) / float64(period)
		if rtl < 1 {
			maxDelay = 500 * time.Millisecond
		} else {
			maxDelay = time.Second / (time.Duration(rtl) * 2)
		}
	}
	bucket := rate.NewLimiter(rate.Limit(rtl), int(burst))
	base := time.Unix(1700000000, 0)
	in := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		line := strings.TrimSpace(in.Text())
		if line == "" {
			continue
		}
		ns, _ := strconv.ParseInt(line, 10, 64)
		now := base.Add(time.Duration(ns))
		// ServeHTTP: Reserve() (ReserveN(time.Now(), 1)), Delay(), Cancel() with time.Now() = now.
		res := bucket.ReserveN(now, 1)
		if !res.OK() {
			fmt.Fprintln(out, "0")
			continue
		}
		delay := res.DelayFrom(now)
		if delay > maxDelay {
			res.CancelAt(now)
			fmt.Fprintln(out, "0")
			continue
		}
		fmt.Fprintf(out, "1 %d\n", int64(delay))
	}
}
