package main

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// ReadMeasurements reads the file scripts/bench-table.sh writes: a line
// "KEY<TAB>VALUE" per series (its median), "@NAME<TAB>TEXT" per fact of the
// run, '#' comments and blank lines.
func ReadMeasurements(r io.Reader) (Measurements, error) {
	m := Measurements{Values: map[string]float64{}, Facts: map[string]string{}}
	err := eachLine(r, func(n int, key, val string) error {
		if name, ok := strings.CutPrefix(key, "@"); ok {
			m.Facts[name] = val
			return nil
		}
		v, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return fmt.Errorf("line %d: %s: not a number: %q", n, key, val)
		}
		m.Values[key] = v
		return nil
	})
	return m, err
}

// ReadBaseline reads a baseline: "KEY<TAB>VALUE" lines, '#' comments.
func ReadBaseline(r io.Reader) (map[string]float64, error) {
	b := map[string]float64{}
	err := eachLine(r, func(n int, key, val string) error {
		v, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return fmt.Errorf("line %d: %s: not a number: %q", n, key, val)
		}
		b[key] = v
		return nil
	})
	return b, err
}

func eachLine(r io.Reader, f func(n int, key, val string) error) error {
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, val, ok := strings.Cut(line, "\t")
		if !ok {
			return fmt.Errorf("line %d: want KEY<TAB>VALUE, got %q", n, line)
		}
		if i := strings.IndexByte(val, '\t'); i >= 0 {
			val = val[:i] // later columns (each run's time) are for people
		}
		if err := f(n, key, strings.TrimSpace(val)); err != nil {
			return err
		}
	}
	return sc.Err()
}

// Result is the table's outcome.
type Result struct {
	Regressions []string // "final/wc: 5.30× against 4.70×"
	Missing     []string // figures this run could not compute
}

// Write prints the table of m, each figure against its goal and its
// baseline base (nil: none), in markdown, as the note quotes it.
func Write(w io.Writer, rows []Row, m Measurements, base map[string]float64) Result {
	var res Result
	facts := sortedFacts(m)
	for _, k := range facts {
		fmt.Fprintf(w, "%s: %s\n", k, m.Facts[k])
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| task | now | ratio now | goal | met | against the baseline |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, row := range rows {
		now := ""
		if t, ok := m.Values[row.Time]; ok && row.Time != "" {
			now = fmt.Sprintf("%.3f s", t)
		}
		if row.Detail != nil {
			now = row.Detail(m)
		}
		var figs, goals, met, vs []string
		unbased := 0
		for _, f := range row.Figures {
			v, ok := f.Value(m)
			if !ok {
				figs = append(figs, "n/a "+strings.TrimSpace(f.Label))
				res.Missing = append(res.Missing, f.Key)
				continue
			}
			figs = append(figs, format(v)+f.Label)
			if f.Goal != nil {
				goals = append(goals, fmt.Sprintf("%s %s%s", opText(f.Goal.Op), format(f.Goal.Value), f.Label))
				if f.Goal.Met(v) {
					met = append(met, "met")
				} else {
					met = append(met, "not met")
				}
			}
			b, has := base[f.Key]
			if !has {
				unbased++
				continue
			}
			switch Compare(v, b, f.Dir) {
			case Regression:
				s := fmt.Sprintf("%s: %s against %s", f.Key, format(v), format(b))
				res.Regressions = append(res.Regressions, s)
				vs = append(vs, "REGRESSION "+s)
			case Improved:
				vs = append(vs, fmt.Sprintf("better (%s against %s)", format(v), format(b)))
			}
		}
		switch {
		case unbased > 0 && unbased == len(figs):
			vs = append(vs, "no baseline")
		case unbased > 0:
			vs = append(vs, fmt.Sprintf("%d without a baseline", unbased))
		case len(vs) == 0 && len(figs) > 0:
			vs = append(vs, "within 10%")
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", row.Task, now,
			strings.Join(figs, "; "), strings.Join(goals, "; "), strings.Join(met, "; "), strings.Join(vs, "; "))
	}
	return res
}

func opText(op string) string {
	switch op {
	case "<=":
		return "≤"
	case ">=":
		return "≥"
	}
	return op
}

// WriteBaseline writes every figure m gives as a baseline, under a header
// that says where it comes from (the run's facts). A figure m does not give
// (a part of the table left out: TIMED=0, SPEND=0, SWEEP=0) keeps its value
// in old, the baseline before, and the header names it.
func WriteBaseline(w io.Writer, rows []Row, m Measurements, old map[string]float64) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "# The baseline of `make bench` (scripts/bench-table.sh; internal/benchtable):")
	fmt.Fprintln(bw, "# each figure of issue 41's table, a later run's figure more than 10% worse")
	fmt.Fprintln(bw, "# is a REGRESSION. Rewritten by BASELINE_UPDATE=1 make bench-table; update it")
	fmt.Fprintln(bw, "# only in a commit that says why. Taken:")
	facts := sortedFacts(m)
	for _, k := range facts {
		fmt.Fprintf(bw, "#   %s: %s\n", k, m.Facts[k])
	}
	var kept, lines []string
	for _, row := range rows {
		for _, f := range row.Figures {
			v, ok := f.Value(m)
			if !ok {
				if v, ok = old[f.Key]; !ok {
					continue
				}
				kept = append(kept, f.Key)
			}
			lines = append(lines, fmt.Sprintf("%s\t%s\n", f.Key, strconv.FormatFloat(v, 'f', 3, 64)))
		}
	}
	if len(kept) > 0 {
		fmt.Fprintf(bw, "# Kept from the baseline before (not measured in this run): %s\n", strings.Join(kept, " "))
	}
	for _, l := range lines {
		bw.WriteString(l)
	}
	return bw.Flush()
}

func sortedFacts(m Measurements) []string {
	facts := make([]string, 0, len(m.Facts))
	for k := range m.Facts {
		facts = append(facts, k)
	}
	sort.Strings(facts)
	return facts
}
