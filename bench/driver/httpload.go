package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// runHTTPLoad: closed-loop GETs over CONNS keep-alive HTTP/1.1 connections for a duration,
// each connection one request at a time (no pipelining), latency per request on the
// monotonic clock. The client is a raw socket writer and a minimal response reader
// (status line, Content-Length, body discarded), so that it costs the shared cores far
// less than the server it measures; Go's net/http costs several times more per request.
//
//	bench-driver http-load URL -- [-conns N] [-seconds S] [-warmup-s W] [-ids 1,2,3]
//
// URL may hold "{id}", replaced in turn by each of -ids (round-robin per connection).
// Prints {"requests", "per_second", "p50_ms", "p99_ms", "p999_ms", "max_ms", "errors"}.
func runHTTPLoad(rawURL string, argv []string) {
	fl := flag.NewFlagSet("http-load", flag.ExitOnError)
	conns := fl.Int("conns", 8, "keep-alive connections, one request in flight on each")
	seconds := fl.Float64("seconds", 10, "measured duration")
	warmup := fl.Float64("warmup-s", 1, "unmeasured warm-up")
	ids := fl.String("ids", "1", "comma-separated values for {id} in the URL")
	_ = fl.Parse(argv)
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "http" {
		die("http-load needs an http:// URL: %q", rawURL)
	}
	var reqs [][]byte
	for _, id := range strings.Split(*ids, ",") {
		path := strings.ReplaceAll(u.RequestURI(), "%7Bid%7D", id)
		path = strings.ReplaceAll(path, "{id}", id)
		reqs = append(reqs, []byte(fmt.Sprintf("GET %s HTTP/1.1\r\nHost: %s\r\nAccept: application/vnd.schemaregistry.v1+json\r\n\r\n", path, u.Host)))
	}
	start := time.Now()
	warmEnd := start.Add(time.Duration(*warmup * 1e9))
	end := warmEnd.Add(time.Duration(*seconds * 1e9))
	var mu sync.Mutex
	var all []int64
	errs := 0
	var wg sync.WaitGroup
	for c := 0; c < *conns; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			lat := make([]int64, 0, 1<<16)
			nerr := 0
			defer func() {
				mu.Lock()
				all = append(all, lat...)
				errs += nerr
				mu.Unlock()
			}()
			conn, err := net.Dial("tcp", u.Host)
			if err != nil {
				nerr++
				return
			}
			defer conn.Close()
			r := bufio.NewReaderSize(conn, 64*1024)
			for i := c; ; i++ {
				t := time.Now()
				if t.After(end) {
					return
				}
				if _, err := conn.Write(reqs[i%len(reqs)]); err != nil {
					nerr++
					return
				}
				status, err := readResponse(r)
				if err != nil {
					nerr++
					return
				}
				if status != 200 {
					nerr++
				}
				if t.After(warmEnd) {
					lat = append(lat, time.Since(t).Nanoseconds())
				}
			}
		}(c)
	}
	wg.Wait()
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	pct := func(p float64) float64 {
		if len(all) == 0 {
			return 0
		}
		i := int(float64(len(all)) * p)
		if i >= len(all) {
			i = len(all) - 1
		}
		return float64(all[i]) / 1e6
	}
	emit(map[string]any{
		"requests": len(all), "per_second": float64(len(all)) / *seconds, "conns": *conns,
		"p50_ms": pct(0.5), "p99_ms": pct(0.99), "p999_ms": pct(0.999), "max_ms": pct(1), "errors": errs,
	})
}

// readResponse reads one HTTP/1.1 response with a Content-Length body and returns its status.
func readResponse(r *bufio.Reader) (int, error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(line))
	if len(f) < 2 {
		return 0, fmt.Errorf("bad status line %q", line)
	}
	status, _ := strconv.Atoi(f[1])
	length := -1
	for {
		h, err := r.ReadSlice('\n')
		if err != nil {
			return 0, err
		}
		if len(h) <= 2 {
			break
		}
		if len(h) > 15 && strings.EqualFold(string(h[:15]), "content-length:") {
			length, _ = strconv.Atoi(strings.TrimSpace(string(h[15:])))
		}
	}
	if length < 0 {
		return 0, fmt.Errorf("no Content-Length")
	}
	_, err = io.CopyN(io.Discard, r, int64(length))
	return status, err
}
