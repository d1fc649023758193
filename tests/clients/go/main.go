// Command driver is the franz-go client driver for the ketch client test
// matrix:
//
//	driver --bootstrap HOST:PORT <command> '<json args>'
//
// It implements the command vocabulary of ../DRIVERS.md with franz-go's kgo
// (produce, consume) and kadm (admin, offsets) packages and prints exactly one
// JSON object on stdout; franz-go logs go to stderr. Exit 0 when the operation
// ran (Kafka error codes are reported in the JSON), non-zero when the driver
// itself failed. See README.md for the choices made per command.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// args is the decoded JSON argument object; each command reads its fields.
type args map[string]json.RawMessage

// field decodes args[name] into out; a missing or null field leaves out as is.
func (a args) field(name string, out any) error {
	raw, ok := a[name]
	if !ok || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("bad %q: %w", name, err)
	}
	return nil
}

func (a args) has(name string) bool {
	raw, ok := a[name]
	return ok && string(raw) != "null"
}

// env is what every command gets: the seed broker, client options derived
// from "config", and a context bounding the whole command.
type env struct {
	ctx       context.Context
	bootstrap []string
	opts      []kgo.Opt
}

// client builds a kgo client with the common options plus extra ones.
func (e *env) client(extra ...kgo.Opt) (*kgo.Client, error) {
	opts := []kgo.Opt{kgo.SeedBrokers(e.bootstrap...), kgo.WithLogger(stderrLogger())}
	opts = append(opts, e.opts...)
	opts = append(opts, extra...)
	return kgo.NewClient(opts...)
}

// unsupported is the DRIVERS.md answer for something franz-go cannot do.
type unsupported struct {
	Unsupported string `json:"unsupported"`
}

type command func(e *env, a args) (any, error)

var commands = map[string]command{
	"create-topics":             createTopics,
	"list-topics":               listTopics,
	"describe-topics":           describeTopics,
	"delete-topics":             deleteTopics,
	"describe-cluster":          describeCluster,
	"produce":                   produce,
	"produce-generated":         produceGenerated,
	"produce-stream":            produceStream,
	"consume":                   consume,
	"offsets-for-times":         offsetsForTimes,
	"list-offsets":              listOffsets,
	"group-consume":             groupConsume,
	"describe-groups":           describeGroups,
	"list-groups":               listGroups,
	"committed-offsets":         committedOffsets,
	"describe-configs":          describeConfigs,
	"alter-configs":             alterConfigs,
	"incremental-alter-configs": incrementalAlterConfigs,
	"create-partitions":         createPartitions,
	"sr-roundtrip":              srRoundtrip,
	"txn-produce":               noTxn,
	"txn-fence":                 noTxn,
	"txn-transform":             noTxn,
}

// noTxn: transactions are covered by the java, confluent and kafkajs drivers.
func noTxn(*env, args) (any, error) {
	return unsupported{"franz-go driver: transactions are covered by the java, confluent and kafkajs drivers"}, nil
}

func stderrLogger() kgo.Logger {
	level := kgo.LogLevelError
	switch strings.ToUpper(os.Getenv("FRANZ_LOG_LEVEL")) {
	case "NONE":
		level = kgo.LogLevelNone
	case "WARN":
		level = kgo.LogLevelWarn
	case "INFO":
		level = kgo.LogLevelInfo
	case "DEBUG":
		level = kgo.LogLevelDebug
	}
	return kgo.BasicLogger(os.Stderr, level, nil)
}

func usage(msg string) {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintf(os.Stderr, "%s\nusage: driver --bootstrap HOST:PORT <command> '<json args>'\ncommands: %s\n",
		msg, strings.Join(names, ", "))
	os.Exit(2)
}

func parseArgv(argv []string) (bootstrap string, cmd string, a args) {
	var rest []string
	for i := 0; i < len(argv); i++ {
		switch {
		case argv[i] == "--bootstrap" && i+1 < len(argv):
			i++
			bootstrap = argv[i]
		case strings.HasPrefix(argv[i], "--bootstrap="):
			bootstrap = strings.TrimPrefix(argv[i], "--bootstrap=")
		default:
			rest = append(rest, argv[i])
		}
	}
	if bootstrap == "" {
		usage("missing --bootstrap HOST:PORT")
	}
	if len(rest) < 1 || len(rest) > 2 {
		usage("expected <command> and optional JSON args")
	}
	cmd = rest[0]
	if _, ok := commands[cmd]; !ok {
		usage("unknown command " + cmd)
	}
	raw := "{}"
	if len(rest) == 2 {
		raw = rest[1]
	}
	if err := json.Unmarshal([]byte(raw), &a); err != nil || a == nil {
		usage(fmt.Sprintf("args must be a JSON object: %v", err))
	}
	return bootstrap, cmd, a
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "driver failed: %v\n", err)
	os.Exit(1)
}

func main() {
	bootstrap, cmd, a := parseArgv(os.Args[1:])
	var config map[string]any
	if err := a.field("config", &config); err != nil {
		fail(err)
	}
	opts, bad, err := configOpts(config)
	if err != nil {
		fail(err)
	}
	var result any
	if bad != "" {
		result = unsupported{bad}
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		e := &env{ctx: ctx, bootstrap: strings.Split(bootstrap, ","), opts: opts}
		if result, err = commands[cmd](e, a); err != nil {
			fail(err)
		}
	}
	out, err := json.Marshal(result)
	if err != nil {
		fail(err)
	}
	os.Stdout.Write(append(out, '\n'))
}
