package main

import (
	"encoding/json"
	"sort"

	"github.com/twmb/franz-go/pkg/kadm"
)

type topicSpec struct {
	Name              string            `json:"name"`
	Partitions        *int32            `json:"partitions"`
	ReplicationFactor *int16            `json:"replication_factor"`
	Configs           map[string]string `json:"configs"`
}

type topicResult struct {
	Name  string  `json:"name"`
	Error *string `json:"error"`
}

func withAdmin(e *env, fn func(*kadm.Client) (any, error)) (any, error) {
	cl, err := e.client()
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	return fn(kadm.NewClient(cl))
}

// createTopics: kadm.CreateTopics takes one partition count, replication
// factor and config set for all its topics, so topics are grouped by those
// and each group is one CreateTopics request (a single request when all
// topics share them). Results are reported in input order.
func createTopics(e *env, a args) (any, error) {
	var specs []topicSpec
	var validateOnly bool
	if err := a.field("topics", &specs); err != nil {
		return nil, err
	}
	if err := a.field("validate_only", &validateOnly); err != nil {
		return nil, err
	}
	return withAdmin(e, func(adm *kadm.Client) (any, error) {
		type group struct {
			partitions int32
			rf         int16
			configs    map[string]*string
			topics     []string
		}
		var groups []*group
		byKey := map[string]*group{}
		for _, s := range specs {
			g := &group{partitions: -1, rf: -1, configs: map[string]*string{}}
			if s.Partitions != nil {
				g.partitions = *s.Partitions
			}
			if s.ReplicationFactor != nil {
				g.rf = *s.ReplicationFactor
			}
			for k, v := range s.Configs {
				g.configs[k] = kadm.StringPtr(v)
			}
			key, _ := json.Marshal([]any{g.partitions, g.rf, s.Configs})
			if have, ok := byKey[string(key)]; ok {
				g = have
			} else {
				byKey[string(key)] = g
				groups = append(groups, g)
			}
			g.topics = append(g.topics, s.Name)
		}
		errs := map[string]*string{}
		for _, g := range groups {
			create := adm.CreateTopics
			if validateOnly {
				create = adm.ValidateCreateTopics
			}
			resp, err := create(e.ctx, g.partitions, g.rf, g.configs, g.topics...)
			for _, t := range g.topics {
				rerr := err
				if err == nil {
					r, ok := resp[t]
					if !ok {
						return nil, errMissing(t)
					}
					rerr = r.Err
				}
				name, ferr := errorName(rerr)
				if ferr != nil {
					return nil, ferr
				}
				errs[t] = name
			}
		}
		results := make([]topicResult, 0, len(specs))
		for _, s := range specs {
			results = append(results, topicResult{s.Name, errs[s.Name]})
		}
		return map[string]any{"results": results}, nil
	})
}

func listTopics(e *env, _ args) (any, error) {
	return withAdmin(e, func(adm *kadm.Client) (any, error) {
		tds, err := adm.ListTopics(e.ctx) // excludes internal topics
		if err != nil {
			return nil, err
		}
		topics := map[string]int{}
		for name, td := range tds {
			topics[name] = len(td.Partitions)
		}
		return map[string]any{"topics": topics}, nil
	})
}

type partitionDesc struct {
	Partition int32   `json:"partition"`
	Leader    int32   `json:"leader"`
	Replicas  []int32 `json:"replicas"`
	ISR       []int32 `json:"isr"`
}

type topicDesc struct {
	Name       string          `json:"name"`
	Error      *string         `json:"error"`
	Partitions []partitionDesc `json:"partitions"`
}

func describeTopics(e *env, a args) (any, error) {
	var names []string
	if err := a.field("topics", &names); err != nil {
		return nil, err
	}
	return withAdmin(e, func(adm *kadm.Client) (any, error) {
		tds, err := adm.ListTopics(e.ctx, names...)
		if err != nil {
			return nil, err
		}
		out := make([]topicDesc, 0, len(names))
		for _, n := range names {
			d := topicDesc{Name: n, Partitions: []partitionDesc{}}
			td, ok := tds[n]
			if !ok {
				unknown := "UNKNOWN_TOPIC_OR_PARTITION"
				d.Error = &unknown
			} else if d.Error, err = errorName(td.Err); err != nil {
				return nil, err
			}
			if ok {
				for _, p := range td.Partitions.Sorted() {
					d.Partitions = append(d.Partitions, partitionDesc{p.Partition, p.Leader, nonNil(p.Replicas), nonNil(p.ISR)})
				}
			}
			out = append(out, d)
		}
		return map[string]any{"topics": out}, nil
	})
}

func nonNil(s []int32) []int32 {
	if s == nil {
		return []int32{}
	}
	return s
}

func deleteTopics(e *env, a args) (any, error) {
	var names []string
	if err := a.field("topics", &names); err != nil {
		return nil, err
	}
	return withAdmin(e, func(adm *kadm.Client) (any, error) {
		resp, err := adm.DeleteTopics(e.ctx, names...)
		results := make([]topicResult, 0, len(names))
		for _, n := range names {
			rerr := err
			if err == nil {
				r, ok := resp[n]
				if !ok {
					return nil, errMissing(n)
				}
				rerr = r.Err
			}
			name, ferr := errorName(rerr)
			if ferr != nil {
				return nil, ferr
			}
			results = append(results, topicResult{n, name})
		}
		return map[string]any{"results": results}, nil
	})
}

type brokerDesc struct {
	ID   int32  `json:"id"`
	Host string `json:"host"`
	Port int32  `json:"port"`
}

func describeCluster(e *env, _ args) (any, error) {
	return withAdmin(e, func(adm *kadm.Client) (any, error) {
		m, err := adm.BrokerMetadata(e.ctx)
		if err != nil {
			return nil, err
		}
		brokers := make([]brokerDesc, 0, len(m.Brokers))
		for _, b := range m.Brokers {
			brokers = append(brokers, brokerDesc{b.NodeID, b.Host, b.Port})
		}
		sort.Slice(brokers, func(i, j int) bool { return brokers[i].ID < brokers[j].ID })
		var controller *int32
		if m.Controller >= 0 {
			controller = &m.Controller
		}
		return map[string]any{"cluster_id": m.Cluster, "controller": controller, "brokers": brokers}, nil
	})
}
