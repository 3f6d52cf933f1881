package yamlfields

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

func TestParseDoc(t *testing.T) {
	for _, doc := range []string{"", "# only a comment\n", "null\n", "~\n", "---\n"} {
		root, err := ParseDoc([]byte(doc))
		assert.NoError(t, err, "%q", doc)
		assert.Nil(t, root, "%q", doc)
	}

	root, err := ParseDoc([]byte("a: 1\n"))
	require.NoError(t, err)
	assert.Equal(t, yaml.MappingNode, root.Kind)

	_, err = ParseDoc([]byte("a: 1\n---\nb: 2\n"))
	assert.EqualError(t, err, "only one YAML document is allowed (a second one starts near line 2)")

	_, err = ParseDoc([]byte("a: [\n"))
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "yaml: ")
	assert.Contains(t, err.Error(), "did not find expected node content")
}

func TestDerefAndIsNull(t *testing.T) {
	root, err := ParseDoc([]byte("a: &x {b: null}\nc: *x\n"))
	require.NoError(t, err)
	alias := root.Content[3]
	require.Equal(t, yaml.AliasNode, alias.Kind)
	target := Deref(alias)
	assert.Same(t, root.Content[1], target)
	assert.True(t, IsNull(Deref(target.Content[1])))
	assert.False(t, IsNull(target))
	assert.Nil(t, Deref(nil))
}

func TestString(t *testing.T) {
	tests := []struct {
		doc    string
		want   string
		wantOK bool
	}{
		{"hello", "hello", true},
		{`"3"`, "3", true},
		{"3", "", false},
		{"true", "", false},
		{"null", "", false},
		{"[a]", "", false},
	}
	for _, tt := range tests {
		var doc yaml.Node
		require.NoError(t, yaml.Unmarshal([]byte(tt.doc), &doc))
		got, ok := String(doc.Content[0])
		assert.Equal(t, tt.want, got, tt.doc)
		assert.Equal(t, tt.wantOK, ok, tt.doc)
	}
}

func TestErrors(t *testing.T) {
	var errs Errors
	errs.Add("a.b", "is %s (line %d)", "bad", 3)
	errs.Add("", "no field")
	assert.Equal(t, Errors{{"a.b", "is bad (line 3)"}, {"", "no field"}}, errs)
	assert.Equal(t, "a.b: is bad (line 3)", errs[0].String())
	assert.Equal(t, "no field", errs[1].String())
}

func TestKind(t *testing.T) {
	scalar := func(n *yaml.Node) string { return "scalar " + n.Value }
	tests := map[string]string{
		"{a: 1}": "a mapping",
		"[a]":    "a list",
		"x":      "scalar x",
	}
	for doc, want := range tests {
		root, err := ParseDoc([]byte(doc))
		require.NoError(t, err)
		assert.Equal(t, want, Kind(root, scalar), doc)
	}
	assert.Equal(t, "an unknown node", Kind(&yaml.Node{Kind: yaml.DocumentNode}, scalar))
}

func kind(n *yaml.Node) string { return "kind-" + n.ShortTag() }

func TestPairs(t *testing.T) {
	root, err := ParseDoc([]byte("b: 1\na: &x two\nb: 3\n4: four\nc: *x\n"))
	require.NoError(t, err)
	var errs Errors
	got := Keys{Describe: kind}.Pairs(root, "", &errs)

	var keys []string
	for _, p := range got {
		keys = append(keys, p.Key)
	}
	assert.Equal(t, []string{"b", "a", "c"}, keys, "document order, repeats and bad keys left out")
	assert.Equal(t, 2, got[1].Line)
	assert.Equal(t, yaml.ScalarNode, got[2].Value.Kind, "aliases are followed")
	assert.Equal(t, "two", got[2].Value.Value)
	assert.Equal(t, Errors{
		{"b", "is set twice (lines 1 and 3)"},
		{"yaml", "keys must be strings, got kind-!!int (line 4)"},
	}, errs)

	errs = nil
	root, err = ParseDoc([]byte("s:\n  [x]: 1\n  k: 1\n  k: 2\n"))
	require.NoError(t, err)
	Keys{Describe: kind}.Pairs(root.Content[1], "top.s.", &errs)
	assert.Equal(t, Errors{
		{"top.s", "keys must be strings, got kind-!!seq (line 2)"},
		{"top.s.k", "is set twice (lines 3 and 4)"},
	}, errs)
}

func TestPairsMergeKey(t *testing.T) {
	root, err := ParseDoc([]byte("base: &b {x: 1}\nm:\n  <<: *b\n  y: 2\n"))
	require.NoError(t, err)
	m := root.Content[3]

	var errs Errors
	got := Keys{Describe: kind}.Pairs(m, "m.", &errs)
	require.Len(t, got, 1)
	assert.Equal(t, "y", got[0].Key)
	assert.Equal(t, Errors{{"m", "keys must be strings, got kind-!!merge (line 3)"}}, errs)

	errs = nil
	got = Keys{Describe: kind, Merge: true}.Pairs(m, "m.", &errs)
	assert.Empty(t, errs)
	require.Len(t, got, 2)
	assert.Equal(t, "<<", got[0].Key)
	assert.Equal(t, yaml.MappingNode, got[0].Value.Kind)
}
