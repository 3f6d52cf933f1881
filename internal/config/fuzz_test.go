package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseInstance: any bytes give a parsed instance or a clear error naming a
// field, never a panic; a parsed instance's canonical form parses back the same.
func FuzzParseInstance(f *testing.F) {
	addSeeds(f, "../../examples/instances")
	f.Add([]byte("stack: example\nparameters:\n  greeting: hi\n  replicas: 2\n"))
	f.Add([]byte("stack: [1]\nparameters: 3\n"))
	f.Add([]byte("{stack: x, parameters: {a: {b: c}}}"))
	stack := exampleStack(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		inst, err := ParseInstance(data)
		if err != nil {
			requireFieldError(t, err)
			return
		}
		again, err := ParseInstance(inst.Canonical())
		if err != nil {
			t.Fatalf("canonical form does not parse: %v\n%s", err, inst.Canonical())
		}
		if string(again.Canonical()) != string(inst.Canonical()) {
			t.Fatalf("canonical form is not stable:\n%s\n%s", inst.Canonical(), again.Canonical())
		}
		if _, err := Validate(stack, inst, nil); err != nil {
			requireFieldError(t, err)
		}
	})
}

// FuzzValidateUpdate: an update checked against the previous config (the `initial` fields)
// is valid or fails naming fields, whatever the two files hold.
func FuzzValidateUpdate(f *testing.F) {
	v1 := []byte("stack: example\nparameters:\n  greeting: hi\n  region: eu-west\n")
	f.Add(v1, []byte("stack: example\nparameters:\n  greeting: hi\n  region: us-east\n"))
	f.Add(v1, []byte("stack: example\nparameters:\n  greeting: hi\n  replicas: 3\n"))
	f.Add([]byte("stack: example\nparameters:\n  greeting: hi\n  region: 7\n"), v1)
	stack := exampleStack(f)
	f.Fuzz(func(t *testing.T, previous, next []byte) {
		prev, err := ParseInstance(previous)
		if err != nil {
			return
		}
		inst, err := ParseInstance(next)
		if err != nil {
			return
		}
		if _, err := Validate(stack, inst, prev); err != nil {
			requireFieldError(t, err)
		}
	})
}

// FuzzParseSchema: any schema bytes give a schema or a *StackError naming fields.
func FuzzParseSchema(f *testing.F) {
	addSeeds(f, "../../examples/stacks/example")
	f.Add([]byte("parameters:\n  - name: a\n    type: int\n    default: 1\n    initial: true\nsecrets: [x]\n"))
	f.Add([]byte("parameters:\n  - name: a\n    type: string\n    enum: [x, y]\n    required: true\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := ParseSchema(data); err != nil {
			var se *StackError
			if !errors.As(err, &se) || len(se.Errors) == 0 {
				t.Fatalf("error is not a *StackError with fields: %v", err)
			}
			for _, fe := range se.Errors {
				if fe.Field == "" || fe.Message == "" {
					t.Fatalf("error without a field or message: %+v", se.Errors)
				}
			}
		}
	})
}

func requireFieldError(t *testing.T, err error) {
	t.Helper()
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Errors) == 0 {
		t.Fatalf("error is not a *ValidationError with fields: %v", err)
	}
	for _, fe := range ve.Errors {
		if fe.Field == "" || fe.Message == "" {
			t.Fatalf("error without a field or message: %+v", ve.Errors)
		}
	}
}

func addSeeds(f *testing.F, dir string) {
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(p) == ".yaml" {
			if data, rerr := os.ReadFile(p); rerr == nil {
				f.Add(data)
			}
		}
		return nil
	})
}

func exampleStack(f *testing.F) *Stack {
	files := map[string][]byte{}
	root := "../../examples/stacks/example"
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		data, err := os.ReadFile(p)
		files[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
	s, err := LoadStack("example", files)
	if err != nil {
		f.Fatal(err)
	}
	return s
}
