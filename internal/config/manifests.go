package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"gopkg.in/yaml.v3"
)

// Object is the identity of one Kubernetes object in the rendered manifests.
type Object struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	Namespace  string `json:"namespace,omitempty"` // as written; empty for cluster-scoped or defaulted
}

// ManifestObjects lists the objects in rendered files under manifests/ (.yaml, .yml, .json,
// as a GitOps agent reads a directory), in path then document order. Empty documents are
// skipped; a *List kind contributes its items. Errors are *ManifestError.
func ManifestObjects(files map[string][]byte) ([]Object, error) {
	var objs []Object
	for _, p := range sortedKeys(files) {
		if !strings.HasPrefix(p, ManifestsDir+"/") {
			continue
		}
		switch path.Ext(p) {
		case ".yaml", ".yml", ".json":
		default:
			continue
		}
		found, err := fileObjects(p, files[p])
		if err != nil {
			return nil, err
		}
		objs = append(objs, found...)
	}
	return objs, nil
}

func fileObjects(file string, data []byte) ([]Object, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var objs []Object
	for doc := 1; ; doc++ {
		var m map[string]any
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, &ManifestError{File: file, Doc: doc, Message: strings.TrimPrefix(err.Error(), "yaml: ")}
		}
		if m == nil {
			continue
		}
		found, merr := docObjects(m, "")
		if merr != nil {
			merr.File, merr.Doc = file, doc
			return nil, merr
		}
		objs = append(objs, found...)
	}
}

// docObjects reads one object, or the items of a List; prefix names the item in errors.
func docObjects(m map[string]any, prefix string) ([]Object, *ManifestError) {
	str := func(field string, v any) (string, *ManifestError) {
		s, ok := v.(string)
		if !ok || s == "" {
			return "", &ManifestError{Field: prefix + field, Message: "is required and must be a string"}
		}
		return s, nil
	}
	var o Object
	var err *ManifestError
	if o.APIVersion, err = str("apiVersion", m["apiVersion"]); err != nil {
		return nil, err
	}
	if o.Kind, err = str("kind", m["kind"]); err != nil {
		return nil, err
	}
	if items, isList := m["items"].([]any); isList && strings.HasSuffix(o.Kind, "List") {
		var objs []Object
		for i, item := range items {
			im, ok := item.(map[string]any)
			if !ok {
				return nil, &ManifestError{Field: prefix + fmt.Sprintf("items[%d]", i), Message: "must be a mapping"}
			}
			found, err := docObjects(im, prefix+fmt.Sprintf("items[%d].", i))
			if err != nil {
				return nil, err
			}
			objs = append(objs, found...)
		}
		return objs, nil
	}
	meta, _ := m["metadata"].(map[string]any)
	if o.Name, err = str("metadata.name", meta["name"]); err != nil {
		return nil, err
	}
	if ns, present := meta["namespace"]; present {
		if o.Namespace, err = str("metadata.namespace", ns); err != nil {
			return nil, err
		}
	}
	return []Object{o}, nil
}
