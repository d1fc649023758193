package main

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// runS3Put: the object store's raw PUT rate, the "machine limit" row of bench/cluster_bench.py.
// CONNS workers (keep-alive connections) PUT objects of SIZE bytes with If-None-Match: * under
// distinct keys for a duration, each signed with SigV4 over the payload's SHA-256 as ketch's
// s3_client signs (src/objstore/s3_client.cc), each worker one request at a time: what a broker's
// flush pipeline does with its max_puts_in_flight (src/shared/shared_engine.h) PUTs.
//
//	bench-driver s3-put ENDPOINT BUCKET -- [-conns N] [-size BYTES] [-seconds S] [-region R]
//
// Credentials from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY. Prints {"puts", "puts_s", "mib_s",
// "p50_ms", "max_ms", "errors"}; any answer but 200 is an error (and exit 1).
func runS3Put(endpoint, bucket string, argv []string) {
	fl := flag.NewFlagSet("s3-put", flag.ExitOnError)
	conns := fl.Int("conns", 4, "PUTs in flight")
	size := fl.Int("size", 1<<20, "object size in bytes")
	seconds := fl.Float64("seconds", 5, "measured duration")
	region := fl.String("region", "us-east-1", "SigV4 region")
	_ = fl.Parse(argv)
	u, err := url.Parse(endpoint)
	if err != nil || u.Scheme != "http" {
		die("s3-put needs an http:// endpoint: %q", endpoint)
	}
	signer := sigv4{os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY"), *region}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *conns}}
	body := bytes.Repeat([]byte("k"), *size)
	run := time.Now().UnixNano()
	end := time.Now().Add(time.Duration(*seconds * 1e9))
	var next, errs atomic.Int64
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	start := time.Now()
	for c := 0; c < *conns; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(end) {
				key := fmt.Sprintf("putrate/%d-%d", run, next.Add(1))
				t := time.Now()
				if err := putOnce(client, signer, u, bucket, key, body); err != nil {
					fmt.Fprintln(os.Stderr, "bench-driver s3-put:", err)
					errs.Add(1)
					return
				}
				mu.Lock()
				lat = append(lat, time.Since(t))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	took := time.Since(start).Seconds()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	res := map[string]any{"puts": len(lat), "puts_s": float64(len(lat)) / took,
		"mib_s": float64(len(lat)) * float64(*size) / (1 << 20) / took, "errors": errs.Load(),
		"conns": *conns, "size": *size}
	if len(lat) > 0 {
		res["p50_ms"] = float64(lat[len(lat)/2].Microseconds()) / 1000
		res["max_ms"] = float64(lat[len(lat)-1].Microseconds()) / 1000
	}
	emit(res)
	if errs.Load() > 0 {
		os.Exit(1)
	}
}

func putOnce(client *http.Client, s sigv4, u *url.URL, bucket, key string, body []byte) error {
	req, err := http.NewRequest(http.MethodPut, u.String()+"/"+bucket+"/"+key, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("If-None-Match", "*")
	s.sign(req, body, time.Now().UTC())
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("PUT %s: %s %s", key, resp.Status, msg)
	}
	return nil
}

type sigv4 struct{ access, secret, region string }

func hmacSHA256(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}

// sign: AWS Signature Version 4 with the headers host, if-none-match, x-amz-content-sha256 and
// x-amz-date signed (the path holds only unreserved characters, so it is its own canonical form).
func (s sigv4) sign(req *http.Request, body []byte, now time.Time) {
	sum := sha256.Sum256(body)
	payload := hex.EncodeToString(sum[:])
	date, stamp := now.Format("20060102"), now.Format("20060102T150405Z")
	req.Header.Set("x-amz-content-sha256", payload)
	req.Header.Set("x-amz-date", stamp)
	signed := "host;if-none-match;x-amz-content-sha256;x-amz-date"
	canonical := "PUT\n" + req.URL.EscapedPath() + "\n\n" + "host:" + req.URL.Host + "\n" + "if-none-match:*\n" +
		"x-amz-content-sha256:" + payload + "\n" + "x-amz-date:" + stamp + "\n\n" + signed + "\n" + payload
	scope := date + "/" + s.region + "/s3/aws4_request"
	ch := sha256.Sum256([]byte(canonical))
	toSign := "AWS4-HMAC-SHA256\n" + stamp + "\n" + scope + "\n" + hex.EncodeToString(ch[:])
	k := hmacSHA256([]byte("AWS4"+s.secret), date)
	k = hmacSHA256(k, s.region)
	k = hmacSHA256(k, "s3")
	k = hmacSHA256(k, "aws4_request")
	req.Header.Set("Authorization", fmt.Sprintf("AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=%s, Signature=%s",
		s.access, scope, signed, hex.EncodeToString(hmacSHA256(k, toSign))))
}
