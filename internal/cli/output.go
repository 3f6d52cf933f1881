package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"
)

// Output formats of the read commands, named as the temporal CLI names them (-o, --output).
const (
	formatText  = "text"
	formatJSON  = "json"
	formatJSONL = "jsonl"
	formatYAML  = "yaml"
)

// outputFormat is the value of -o/--output: one of accepted, checked as the flag is parsed so a bad
// value exits 2 before anything is dialled.
type outputFormat struct {
	value    string
	accepted []string
	// legacy takes the values -o had before it named the format (status: summary|all|detail).
	legacy func(string) bool
}

func (o *outputFormat) String() string { return o.value }
func (o *outputFormat) Type() string   { return "format" }

func (o *outputFormat) Set(s string) error {
	if o.legacy != nil && o.legacy(s) {
		return nil
	}
	if !slices.Contains(o.accepted, s) {
		return fmt.Errorf("%q is not one of %s", s, strings.Join(o.accepted, ", "))
	}
	o.value = s
	return nil
}

// jsonAlias is the hidden --json of older scripts: -o json.
type jsonAlias struct{ o *outputFormat }

func (j jsonAlias) String() string   { return "false" }
func (j jsonAlias) Type() string     { return "bool" }
func (j jsonAlias) IsBoolFlag() bool { return true }

func (j jsonAlias) Set(s string) error {
	switch s {
	case "true":
		j.o.value = formatJSON
	case "false":
	default:
		return fmt.Errorf("%q is not true or false", s)
	}
	return nil
}

// outputFlag adds -o/--output (default the first of accepted, else text, json, yaml) and the hidden
// --json to a read command.
func outputFlag(cmd *cobra.Command, accepted ...string) *outputFormat {
	if len(accepted) == 0 {
		accepted = []string{formatText, formatJSON, formatYAML}
	}
	o := &outputFormat{value: accepted[0], accepted: accepted}
	f := cmd.Flags()
	f.VarP(o, "output", "o", "output format: "+strings.Join(accepted, ", "))
	f.Var(jsonAlias{o}, "json", "same as -o json (kept for older scripts)")
	f.Lookup("json").NoOptDefVal = "true"
	_ = f.MarkHidden("json")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(accepted, cobra.ShellCompDirectiveNoFileComp))
	return o
}

// output prints v in the chosen format: text with write, else JSON (indented) or YAML with the
// same keys.
func (g *globals) output(o *outputFormat, v any, write func(w io.Writer)) error {
	switch o.value {
	case formatJSON:
		return g.json(v)
	case formatJSONL:
		return g.jsonLine(v)
	case formatYAML:
		return writeYAML(g.streams.Out, v)
	default:
		write(g.streams.Out)
		return nil
	}
}

// item prints one entry of a stream (a log that may be followed): JSON a line for json and jsonl,
// a YAML document each for yaml.
func (g *globals) item(o *outputFormat, v any, write func(w io.Writer)) error {
	switch o.value {
	case formatJSON, formatJSONL:
		return g.jsonLine(v)
	case formatYAML:
		if _, err := io.WriteString(g.streams.Out, "---\n"); err != nil {
			return err
		}
		return writeYAML(g.streams.Out, v)
	default:
		write(g.streams.Out)
		return nil
	}
}

func (g *globals) json(v any) error {
	enc := json.NewEncoder(g.streams.Out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func (g *globals) jsonLine(v any) error { return json.NewEncoder(g.streams.Out).Encode(v) }

// writeYAML prints v as YAML with exactly the keys, order and values of its JSON.
func writeYAML(w io.Writer, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	node, err := yamlNode(json.NewDecoder(bytes.NewReader(data)))
	if err != nil {
		return err
	}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(node); err != nil {
		return err
	}
	return enc.Close()
}

// yamlNode reads one JSON value as a YAML node, keeping the object's key order (a map would sort
// it) and every string a string (quoted where YAML would read it as a number, bool or time).
func yamlNode(dec *json.Decoder) (*yaml.Node, error) {
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		if t == '{' {
			n = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		}
		for dec.More() {
			if t == '{' {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k.(string)})
			}
			c, err := yamlNode(dec)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, c)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
		if len(n.Content) == 0 {
			n.Style = yaml.FlowStyle // [] and {}, not an empty block
		}
		return n, nil
	case string:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: t}, nil
	case json.Number:
		tag := "!!int"
		if strings.ContainsAny(t.String(), ".eE") {
			tag = "!!float"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: t.String()}, nil
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(t)}, nil
	default: // null
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	}
}
