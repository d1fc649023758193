package main

import (
	"strconv"

	"github.com/twmb/franz-go/pkg/kadm"
)

// configTarget is the resource of a config command: a topic, or a broker by
// id ("" = the cluster-wide default).
type configTarget struct {
	resource string
	name     string
}

func readTarget(a args) (configTarget, error) {
	t := configTarget{resource: "topic"}
	if err := a.field("resource", &t.resource); err != nil {
		return t, err
	}
	return t, a.field("name", &t.name)
}

func (t configTarget) brokers() ([]int32, error) {
	if t.name == "" {
		return nil, nil
	}
	id, err := strconv.ParseInt(t.name, 10, 32)
	if err != nil {
		return nil, err
	}
	return []int32{int32(id)}, nil
}

// describeConfigs: kadm reports no read-only flag, so read_only is null.
func describeConfigs(e *env, a args) (any, error) {
	t, err := readTarget(a)
	if err != nil {
		return nil, err
	}
	var keys []string
	var synonyms bool
	if err := a.field("keys", &keys); err != nil {
		return nil, err
	}
	if err := a.field("synonyms", &synonyms); err != nil {
		return nil, err
	}
	return withAdmin(e, func(adm *kadm.Client) (any, error) {
		var rcs kadm.ResourceConfigs
		var err error
		if t.resource == "topic" {
			rcs, err = adm.DescribeTopicConfigs(e.ctx, t.name)
		} else {
			var ids []int32
			if ids, err = t.brokers(); err == nil {
				rcs, err = adm.DescribeBrokerConfigs(e.ctx, ids...)
			}
		}
		if err == nil && len(rcs) > 0 {
			err = rcs[0].Err
		}
		if err != nil {
			name, ferr := errorName(err)
			if ferr != nil {
				return nil, ferr
			}
			return map[string]any{"error": name, "configs": map[string]any{}}, nil
		}
		want := map[string]bool{}
		for _, k := range keys {
			want[k] = true
		}
		out := map[string]any{}
		for _, c := range rcs[0].Configs {
			if len(keys) > 0 && !want[c.Key] {
				continue
			}
			entry := map[string]any{"value": c.Value, "source": c.Source.String(), "read_only": nil,
				"sensitive": c.Sensitive}
			if synonyms {
				syns := [][]any{}
				for _, s := range c.Synonyms {
					syns = append(syns, []any{s.Key, s.Value, s.Source.String()})
				}
				entry["synonyms"] = syns
			}
			out[c.Key] = entry
		}
		return map[string]any{"error": nil, "configs": out}, nil
	})
}

func alterResult(rs kadm.AlterConfigsResponses, err error) (any, error) {
	if err == nil && len(rs) > 0 {
		err = rs[0].Err
	}
	name, ferr := errorName(err)
	if ferr != nil {
		return nil, ferr
	}
	return map[string]any{"error": name}, nil
}

var incrementalOps = map[string]kadm.IncrementalOp{
	"SET": kadm.SetConfig, "DELETE": kadm.DeleteConfig, "APPEND": kadm.AppendConfig, "SUBTRACT": kadm.SubtractConfig,
}

func alterConfigsCommand(e *env, a args, incremental bool) (any, error) {
	t, err := readTarget(a)
	if err != nil {
		return nil, err
	}
	var validateOnly bool
	if err := a.field("validate_only", &validateOnly); err != nil {
		return nil, err
	}
	var configs []kadm.AlterConfig
	if incremental {
		var ops []struct {
			Key   string  `json:"key"`
			Op    string  `json:"op"`
			Value *string `json:"value"`
		}
		if err := a.field("ops", &ops); err != nil {
			return nil, err
		}
		for _, o := range ops {
			configs = append(configs, kadm.AlterConfig{Op: incrementalOps[o.Op], Name: o.Key, Value: o.Value})
		}
	} else {
		var set map[string]string
		if err := a.field("configs", &set); err != nil {
			return nil, err
		}
		for k, v := range set {
			configs = append(configs, kadm.AlterConfig{Name: k, Value: kadm.StringPtr(v)})
		}
	}
	return withAdmin(e, func(adm *kadm.Client) (any, error) {
		if t.resource == "topic" {
			switch {
			case incremental && validateOnly:
				return alterResult(adm.ValidateAlterTopicConfigs(e.ctx, configs, t.name))
			case incremental:
				return alterResult(adm.AlterTopicConfigs(e.ctx, configs, t.name))
			case validateOnly:
				return alterResult(adm.ValidateAlterTopicConfigsState(e.ctx, configs, t.name))
			default:
				return alterResult(adm.AlterTopicConfigsState(e.ctx, configs, t.name))
			}
		}
		ids, err := t.brokers()
		if err != nil {
			return nil, err
		}
		switch {
		case incremental && validateOnly:
			return alterResult(adm.ValidateAlterBrokerConfigs(e.ctx, configs, ids...))
		case incremental:
			return alterResult(adm.AlterBrokerConfigs(e.ctx, configs, ids...))
		case validateOnly:
			return alterResult(adm.ValidateAlterBrokerConfigsState(e.ctx, configs, ids...))
		default:
			return alterResult(adm.AlterBrokerConfigsState(e.ctx, configs, ids...))
		}
	})
}

func alterConfigs(e *env, a args) (any, error) { return alterConfigsCommand(e, a, false) }

func incrementalAlterConfigs(e *env, a args) (any, error) { return alterConfigsCommand(e, a, true) }

func createPartitions(e *env, a args) (any, error) {
	var topic string
	var count int
	var validateOnly bool
	for name, out := range map[string]any{"topic": &topic, "count": &count, "validate_only": &validateOnly} {
		if err := a.field(name, out); err != nil {
			return nil, err
		}
	}
	return withAdmin(e, func(adm *kadm.Client) (any, error) {
		update := adm.UpdatePartitions
		if validateOnly {
			update = adm.ValidateUpdatePartitions
		}
		rs, err := update(e.ctx, count, topic)
		if err == nil {
			if r, ok := rs[topic]; ok {
				err = r.Err
			}
		}
		name, ferr := errorName(err)
		if ferr != nil {
			return nil, ferr
		}
		return map[string]any{"error": name}, nil
	})
}
