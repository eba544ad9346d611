// RateLab: a service's call of the server-clock limiter script (go-redis v9:
// go get github.com/redis/go-redis/v9).
//
//	@COMMAND@ > ratelab.lua
//	REDIS_URL=redis://localhost:6379 RATELAB_SCRIPT=ratelab.lua go run caller.go user:42 3
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

const layers = @LAYERS@

// keysFor returns one key per layer, all with the same {hash tag}: one slot in Redis Cluster.
func keysFor(id string) []string {
	if layers == 1 {
		return []string{"rl:{" + id + "}"}
	}
	keys := make([]string, layers)
	for i := range keys {
		keys[i] = fmt.Sprintf("rl:{%s}:%d", id, i+1)
	}
	return keys
}

func main() {
	ctx := context.Background()
	url := os.Getenv("REDIS_URL")
	if url == "" {
		url = "redis://localhost:6379"
	}
	opt, err := redis.ParseURL(url)
	if err != nil {
		panic(err)
	}
	rdb := redis.NewClient(opt)
	path := os.Getenv("RATELAB_SCRIPT")
	if path == "" {
		path = "ratelab.lua"
	}
	src, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	script := string(src)
	sha, err := rdb.ScriptLoad(ctx, script).Result() // once; EVALSHA then sends 40 bytes
	if err != nil {
		panic(err)
	}

	// check decides one request of id: the HTTP status and the headers to send, or Redis's
	// error (WRONGTYPE, OOM, no connection), which is never a 429.
	check := func(id string, cost int) (int, [][2]string, error) {
		keys := keysFor(id)
		v, err := rdb.EvalSha(ctx, sha, keys, cost).Int64Slice()
		if err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") { // restarted or failed over
			v, err = rdb.Eval(ctx, script, keys, cost).Int64Slice()
		}
		if err != nil {
			return 0, nil, err
		}
		headers := [][2]string{
			{"X-RateLimit-Limit", strconv.FormatInt(v[4], 10)},
			{"X-RateLimit-Remaining", strconv.FormatInt(v[1], 10)},
			{"X-RateLimit-Reset", strconv.FormatInt(v[7], 10)},
			{"RateLimit", fmt.Sprintf("\"default\";r=%d;t=%d", v[1], v[6])},
		}
		if v[0] == 0 && v[3] > 0 { // -1: the cost exceeds the quota, no wait helps
			headers = append(headers, [2]string{"Retry-After", strconv.FormatInt(v[3], 10)})
		}
		if v[0] == 1 {
			return 200, headers, nil
		}
		return 429, headers, nil
	}

	id, n := "user:42", 1
	if len(os.Args) > 1 {
		id = os.Args[1]
	}
	if len(os.Args) > 2 {
		n, _ = strconv.Atoi(os.Args[2])
	}
	for i := 0; i < n; i++ {
		status, headers, err := check(id, 1)
		if err != nil {
			fmt.Fprintln(os.Stderr, "caller.go: Redis answered an error, not a decision:", err)
			os.Exit(1)
		}
		text := "OK"
		if status == 429 {
			text = "Too Many Requests"
		}
		fmt.Printf("HTTP/1.1 %d %s\n", status, text)
		for _, h := range headers {
			fmt.Printf("%s: %s\n", h[0], h[1])
		}
		fmt.Println()
	}
}
