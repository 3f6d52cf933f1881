// Package examples holds the example stack and instance files that ship with slipway.
package examples

import (
	"embed"
	"io/fs"
	"path"
	"strings"
)

// FS holds stacks/<name>/... and instances/*.yaml.
//
//go:embed stacks instances
var FS embed.FS

// StackFiles returns every file under stacks/<name>/, keyed by path relative to it. An
// unknown stack gives an empty map and no error, as a forge's ReadDir does.
func StackFiles(name string) (map[string][]byte, error) {
	files := map[string][]byte{}
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
		return files, nil // not a single directory name, so no stack
	}
	dir := path.Join("stacks", name)
	if _, err := fs.Stat(FS, dir); err != nil {
		return files, nil
	}
	err := fs.WalkDir(FS, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(FS, p)
		if err != nil {
			return err
		}
		files[p[len(dir)+1:]] = data
		return nil
	})
	if err != nil {
		return nil, err
	}
	return files, nil
}
