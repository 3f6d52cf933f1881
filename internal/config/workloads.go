package config

import (
	"bytes"
	"errors"
	"io"
	"path"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"
)

// podTemplated are the workloads whose pods are recreated when their pod template changes.
var podTemplated = map[string]bool{"Deployment": true, "StatefulSet": true, "DaemonSet": true, "ReplicaSet": true}

// immutableSpec are the kinds whose spec cannot change in place: a change recreates them.
var immutableSpec = map[string]bool{"Pod": true, "Job": true}

// WorkloadChanges lists, as Kind/name, what a deploy from the rendered manifests from to those
// of to deletes or recreates: an object from has and to does not (deleted); a Deployment,
// StatefulSet, DaemonSet or ReplicaSet whose spec.template changes (its pods are recreated); a
// Pod or Job whose spec changes (immutable: deleted and created again). Nothing else counts.
func WorkloadChanges(from, to map[string][]byte) ([]string, error) {
	before, err := manifestDocs(from)
	if err != nil {
		return nil, err
	}
	after, err := manifestDocs(to)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, d := range before.order {
		old := before.docs[d]
		now, kept := after.docs[d]
		kind, name := d.kind, d.name
		switch {
		case !kept:
		case podTemplated[kind] && !reflect.DeepEqual(field(old, "spec", "template"), field(now, "spec", "template")):
		case immutableSpec[kind] && !reflect.DeepEqual(field(old, "spec"), field(now, "spec")):
		default:
			continue
		}
		out = append(out, kind+"/"+name)
	}
	return out, nil
}

type docKey struct{ kind, namespace, name string }

type docSet struct {
	docs  map[docKey]map[string]any
	order []docKey
}

// manifestDocs reads the objects of the files under manifests/ as ManifestObjects does.
func manifestDocs(files map[string][]byte) (docSet, error) {
	set := docSet{docs: map[docKey]map[string]any{}}
	if _, err := ManifestObjects(files); err != nil {
		return set, err // one set of rules for what a manifest is
	}
	var add func(m map[string]any)
	add = func(m map[string]any) {
		kind, _ := m["kind"].(string)
		if items, isList := m["items"].([]any); isList && strings.HasSuffix(kind, "List") {
			for _, item := range items {
				if im, ok := item.(map[string]any); ok {
					add(im)
				}
			}
			return
		}
		meta, _ := m["metadata"].(map[string]any)
		ns, _ := meta["namespace"].(string)
		name, _ := meta["name"].(string)
		k := docKey{kind: kind, namespace: ns, name: name}
		if _, seen := set.docs[k]; !seen {
			set.order = append(set.order, k)
		}
		set.docs[k] = m
	}
	for _, p := range sortedKeys(files) {
		if !strings.HasPrefix(p, ManifestsDir+"/") {
			continue
		}
		switch path.Ext(p) {
		case ".yaml", ".yml", ".json":
		default:
			continue
		}
		dec := yaml.NewDecoder(bytes.NewReader(files[p]))
		for {
			var m map[string]any
			err := dec.Decode(&m)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return set, err
			}
			if m != nil {
				add(m)
			}
		}
	}
	return set, nil
}

func field(m map[string]any, keys ...string) any {
	var v any = m
	for _, k := range keys {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[k]
	}
	return v
}
