package preset

import (
	"fmt"
	"strings"
)

// Registry is a set of presets, in the order help and docs list them.
type Registry struct{ list []Preset }

// Builtin returns a new registry holding the built-in presets, one per
// file of this package.
func Builtin() *Registry {
	return &Registry{list: []Preset{all, text, tools, errorsPreset, final, types, usage, subagents, initPreset, account}}
}

// Add appends a preset; a name already taken is an error.
func (r *Registry) Add(p Preset) error {
	if _, ok := r.Lookup(p.Name); ok {
		return fmt.Errorf("preset %q already exists", p.Name)
	}
	if p.Name == "" || p.Start == nil {
		return fmt.Errorf("preset %q: a preset needs a name and a Start", p.Name)
	}
	r.list = append(r.list, p)
	return nil
}

// Lookup returns the preset with the given name.
func (r *Registry) Lookup(name string) (Preset, bool) {
	for _, p := range r.list {
		if p.Name == name {
			return p, true
		}
	}
	return Preset{}, false
}

// ForWord returns the name of the preset that word names among its Words
// (case aside), or "".
func (r *Registry) ForWord(word string) string {
	for _, p := range r.list {
		for _, w := range p.Words {
			if strings.EqualFold(w, word) {
				return p.Name
			}
		}
	}
	return ""
}

// List returns the presets in order.
func (r *Registry) List() []Preset { return append([]Preset(nil), r.list...) }

// Names returns the preset names in order.
func (r *Registry) Names() []string {
	out := make([]string, len(r.list))
	for i, p := range r.list {
		out[i] = p.Name
	}
	return out
}
