package jsonx

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestValidateAgreesWithEncodingJSON proves Validate accepts and rejects the
// same documents as encoding/json on hand-picked edge cases.
func TestValidateAgreesWithEncodingJSON(t *testing.T) {
	cases := []string{
		`{}`, `[]`, `""`, `0`, `-0`, `1.5e+10`, `true`, `false`, `null`,
		`{"a":"b\"c\\"}`, `{"a":"\\"}`, `{"a":"\u2028\ud83d\ude00"}`,
		` {"a" : [1, 2 ,{"b":null}] } `,
		`{"a":}`, `{"a"}`, `{"a":1,}`, `[1,]`, `[1 2]`, `01`, `1.`, `1e`, `-`, `.5`,
		`{"a":"b`, `{"a":"b\"}`, `{"a":tru}`, `{"a":nul`, `"\x"`, `"\u12"`, `"\u12g4"`,
		`{"a":1}}`, `{"a":1} x`, ``, `   `, `[`, `{`, `{"type":"result"`,
		`{"a":[{"b":[{"c":"\\\\\"x"}]}]}`,
		// A control character written raw in a string or a key.
		"\"a\x01b\"", "{\"a\x1f\":1}", "[\"\x00\"]", "\"tab\there\"", "\"" + strings.Repeat("x", 200) + "\x1b[31m\"",
	}
	for _, c := range cases {
		t.Run(c, func(t *testing.T) {
			want := json.Valid([]byte(c))
			err := Validate([]byte(c))
			assert.Equal(t, want, err == nil, "Validate(%q) = %v", c, err)
		})
	}
}

// TestValidateCutLineReportsUnexpectedEnd proves a line cut off by a killed
// producer is reported as an unexpected end, at the end of the input.
func TestValidateCutLineReportsUnexpectedEnd(t *testing.T) {
	line := []byte(`{"type":"assistant","message":{"content":[{"type":"text","text":"hel`)
	err := Validate(line)
	var se *SyntaxError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, len(line), se.Offset)
	assert.Contains(t, se.Msg, "unexpected end")
}

// TestValidateDeepNestingIsAnErrorNotACrash proves hostile nesting is bounded.
func TestValidateDeepNestingIsAnErrorNotACrash(t *testing.T) {
	deep := bytes.Repeat([]byte("["), MaxDepth+10)
	require.Error(t, Validate(deep))
}

// TestAccessors proves Get/Index/Str/Int/Bool read fields as encoding/json
// would, and give zero values on type mismatch.
func TestAccessors(t *testing.T) {
	v := Parse([]byte(`{"type":"user","n":42,"f":1.5,"ok":true,"s":"a\nb\u00e9\ud83d\ude00","arr":[1,"x",{"k":"v"}],"o":{"in":{"x":"y"}},"e\u0078":"escaped-key"}`))
	assert.Equal(t, "user", v.Get("type").Str())
	assert.True(t, v.Get("type").StrEqual("user"))
	assert.Equal(t, int64(42), v.Get("n").Int())
	assert.Equal(t, 1.5, v.Get("f").Float())
	assert.True(t, v.Get("ok").Bool())
	assert.Equal(t, "a\nbé😀", v.Get("s").Str())
	assert.Equal(t, len("a\nbé😀"), v.Get("s").StrLen())
	assert.Equal(t, "x", v.Get("arr").Index(1).Str())
	assert.Equal(t, "v", v.Get("arr").Index(2).Get("k").Str())
	assert.Equal(t, 3, v.Get("arr").Len())
	assert.Equal(t, "y", v.Path("o", "in", "x").Str())
	assert.Equal(t, "escaped-key", v.Get("ex").Str())
	// Type mismatches read as zero values.
	assert.Equal(t, "", v.Get("n").Str())
	assert.Equal(t, int64(0), v.Get("type").Int())
	assert.False(t, v.Get("type").Bool())
	assert.Nil(t, v.Get("missing"))
	assert.Nil(t, v.Get("type").Get("x"))
	assert.True(t, v.Get("missing").IsNull())
}

// TestDuplicateKeyLastWins proves Get and Lookup read a key written twice
// as its last value, as jq and JSON.parse do, also when one spelling is
// escaped.
//
// Get takes a later duplicate written plainly; the top level's member index
// (Lookup) takes every spelling.
func TestDuplicateKeyLastWins(t *testing.T) {
	assert.False(t, Parse([]byte(`{"is_error":true,"t":"is_error","is_error":false}`)).Get("is_error").Bool())
	assert.Equal(t, "3", string(Parse([]byte(`{"a":1,"b":{"a":2},"a":3}`)).Get("a")), "a nested key is not the object's")
	assert.Equal(t, "1", string(Parse([]byte(`{"a":1,"b":"\"a\""}`)).Get("a")), "a key's text in a string is not a key")
	assert.Equal(t, "2", string(Parse([]byte(`{"":1,"":2}`)).Get("")), "the empty key too")
	line := []byte(`{"is_error":true,"t":1,"is_\u0065rror":false}`)
	members, err := Members(line, nil)
	require.NoError(t, err)
	assert.Equal(t, "false", string(Lookup(members, "is_error")))
}

// TestNumbersThatDoNotFit proves IntOK and FloatOK tell a number past
// int64 or float64 from a 0 that was written, and Int/Float never give
// +Inf or a wrapped-around value.
func TestNumbersThatDoNotFit(t *testing.T) {
	cases := []struct {
		in  string
		i   int64
		iok bool
		f   float64
		fok bool
	}{
		{"0", 0, true, 0, true},
		{"9223372036854775807", math.MaxInt64, true, 9223372036854775807, true},
		{"9223372036854775808", 0, false, 9223372036854775808, true},
		{"-9223372036854775808", math.MinInt64, true, -9223372036854775808, true},
		{"1e30", 0, false, 1e30, true},
		{"1e400", 0, false, 0, false},
		{"-1e400", 0, false, 0, false},
		{"1e-400", 0, true, 0, true},
		{"2.5", 2, true, 2.5, true},
		{`"7"`, 0, false, 0, false},
	}
	for _, c := range cases {
		i, iok := Value(c.in).IntOK()
		f, fok := Value(c.in).FloatOK()
		assert.Equal(t, []any{c.i, c.iok, c.f, c.fok}, []any{i, iok, f, fok}, c.in)
		assert.Equal(t, c.i, Value(c.in).Int(), c.in)
		assert.Equal(t, c.f, Value(c.in).Float(), c.in)
	}
}

// TestDecodeMatchesEncodingJSON proves Decode builds the same tree as
// encoding/json (numbers aside: ints stay ints, big ints stay exact).
func TestDecodeMatchesEncodingJSON(t *testing.T) {
	doc := `{"a":[1,2.5,"s",null,true,{"b":{}}],"big":123456789012345678901234567890,"neg":-7,"exp":1e3}`
	got := Parse([]byte(doc)).Decode().(map[string]any)
	assert.Equal(t, []any{1, 2.5, "s", nil, true, map[string]any{"b": map[string]any{}}}, got["a"])
	want, _ := new(big.Int).SetString("123456789012345678901234567890", 10)
	assert.Equal(t, want, got["big"])
	assert.Equal(t, -7, got["neg"])
	assert.Equal(t, 1000.0, got["exp"])
}

// eachCaptureLine calls f with every line of every real capture (n counts
// from 1).
func eachCaptureLine(t *testing.T, f func(file string, n int, line []byte)) {
	t.Helper()
	files, err := filepath.Glob("../../testdata/events/*.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		for n, line := range bytes.Split(data, []byte("\n")) {
			f(file, n+1, line)
		}
	}
}

// TestDecodeEveryCaptureLine proves, on every line of every real capture,
// that Validate accepts it and Decode equals encoding/json's tree (with
// numbers compared as float64).
func TestDecodeEveryCaptureLine(t *testing.T) {
	eachCaptureLine(t, func(f string, n int, line []byte) {
		if len(line) == 0 {
			return
		}
		require.NoError(t, Validate(line), "%s:%d", f, n)
		var want any
		require.NoError(t, json.Unmarshal(line, &want))
		assert.Equal(t, want, normalize(Parse(line).Decode()), "%s:%d", f, n)
	})
}

// TestFindReadsOnlyTheHead proves that Find and First stop at the value they
// reach: on a line whose tail is garbage (never read), they still answer,
// and Trim gives exactly what Get gives on the valid part.
func TestFindReadsOnlyTheHead(t *testing.T) {
	line := Value(`{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"` + strings.Repeat(`x\"`, 1000) + `"}]}}`)
	cut := line[:len(line)-200] // cut inside the long content
	block := cut.Find("message").Find("content").First()
	assert.Equal(t, "tool_result", block.Find("type").Trim().Str())
	assert.Equal(t, "t1", block.Find("tool_use_id").Trim().Str())
	assert.Nil(t, block.Find("content").Trim(), "a value cut off has no end")
	assert.Nil(t, cut.Find("missing"), "a key after the cut is not found")
	full := line.Find("message").Find("content").First()
	assert.Equal(t, line.Path("message", "content").Index(0).Get("content"), full.Find("content").Trim())

	tests := []struct {
		name string
		in   string
		key  string
		want string // Find(key).Trim(); "" for nil
	}{
		{"first key", `{"a":1,"b":2}`, "a", `1`},
		{"later key", `{"a":[1,{"x":"}"}],"b":"q"}`, "b", `"q"`},
		{"escaped key", `{"\u0061":true}`, "a", `true`},
		{"escaped longer key", `{"a":1,"t\u0079pe":"x"}`, "type", `"x"`},
		{"escape of a backslash", `{"t\\ype":1}`, "type", ``},
		{"absent", `{"a":1}`, "z", ``},
		{"not an object", `[1]`, "a", ``},
		{"spaces", `{ "a" : { "b" : 1 } }`, "a", `{ "b" : 1 }`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Value(tt.in).Find(tt.key).Trim()
			assert.Equal(t, tt.want, string(got))
			assert.Equal(t, string(Value(tt.in).Get(tt.key)), string(got), "Find.Trim equals Get")
		})
	}
	assert.Equal(t, `{"b":1}`, string(Value(`[ {"b":1} ,2]`).First().Trim()))
	assert.Nil(t, Value(`[]`).First())
}

// normalize turns ints into float64 so trees compare with encoding/json's.
func normalize(v any) any {
	switch x := v.(type) {
	case int:
		return float64(x)
	case *big.Int:
		f, _ := new(big.Float).SetInt(x).Float64()
		return f
	case []any:
		for i := range x {
			x[i] = normalize(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = normalize(x[k])
		}
	}
	return v
}

// FuzzValidateDecode proves on arbitrary bytes that nothing panics, that
// whatever encoding/json accepts Validate accepts, and that then both build
// the same tree.
func FuzzValidateDecode(f *testing.F) {
	f.Add([]byte(`{"type":"result","result":"ok"}`))
	f.Add([]byte(`[1,"\u2028",{"a":null}]`))
	f.Add([]byte(`{"a":"\\\""}`))
	f.Add([]byte(`[{"type":"tool_result","content":"x"},1,{},{"a":[{"b":2}]}]`))
	f.Add([]byte("{\"type\":\"assistant\",\"text\":\"a\x01b\"}"))
	f.Add([]byte(`{"is_error":true,"is_error":false}`))
	f.Add([]byte(`{"total_cost_usd":1e400,"n":99999999999999999999}`))
	f.Add([]byte(`"\\\\u0041\ud83d\ude00\ud83d\u0041\\\u00e9"`))
	f.Fuzz(func(t *testing.T, b []byte) {
		err := Validate(b)
		v := Parse(b)
		_ = v.Get("type").Str()
		_ = v.Index(0).StrLen()
		_ = v.Decode()
		_ = v.Find("type").First().Find("x").Trim().Str()
		// AppendStr appends what Str returns, on any bytes.
		for _, s := range []Value{v, v.Index(0), v.Get("type")} {
			require.Equal(t, "kept"+s.Str(), string(s.AppendStr([]byte("kept"))))
		}
		// The one-pass decoder accepts what Validate accepts, fails as it
		// fails, and builds what the walking decoder builds.
		tree, derr := DecodeValid(b)
		if err != nil {
			require.Error(t, derr)
			require.Equal(t, err.Error(), derr.Error())
		} else {
			require.NoError(t, derr)
			require.Equal(t, normalize(Parse(b).decodeLoose()), normalize(tree))
		}
		requireCompactAsEncodingJSON(t, b)
		requireProjectedAsWhole(t, b, err == nil)
		// What Validate accepts is framed; what Members accepts (it also
		// checks the top level's separators) is framed too.
		ms, merr := Members(b, nil)
		// ValidMembers is Validate and Members in one pass.
		vms, verr := ValidMembers(b, nil)
		if v.Type() == Object || err != nil {
			require.Equal(t, fmt.Sprint(err), fmt.Sprint(verr), "ValidMembers fails as Validate does")
		}
		if err == nil && v.Type() == Object {
			require.Equal(t, ms, vms)
		}
		if err == nil {
			require.NoError(t, ValidateFraming(b))
			if v.Type() == Object {
				require.NoError(t, merr)
			}
		}
		if merr == nil {
			require.NoError(t, ValidateFraming(b))
		}
		if json.Valid(b) {
			require.NoError(t, err)
			// The open-ended lookups find what the exact ones find: Find
			// the first of a key written twice, Get the last.
			var all []Member
			v.EachMember(func(k []byte, val Value) bool {
				all = append(all, Member{k, val})
				return true
			})
			// (Get misses a later duplicate spelled with escapes.)
			escapedKeys := slices.ContainsFunc(all, func(m Member) bool { return bytes.IndexByte(m.Key, '\\') >= 0 })
			for _, m := range all {
				if bytes.IndexByte(m.Key, '\\') >= 0 {
					continue // (looked up by its unescaped text, which may not be UTF-8)
				}
				key := string(m.Key)
				var first, last Value
				for _, o := range all {
					if keyEqual(o.Key, key) {
						if first == nil {
							first = o.Val
						}
						last = o.Val
					}
				}
				require.Equal(t, first, v.Find(key).Trim(), "key %q", key)
				if !escapedKeys {
					require.Equal(t, last, v.Get(key), "key %q", key)
				}
			}
			require.Equal(t, v.Index(0), v.First().Trim())
			// Members lists what EachMember walks.
			var walked []Member
			v.EachMember(func(k []byte, val Value) bool {
				walked = append(walked, Member{k, val})
				return true
			})
			if v.Type() == Object {
				require.Equal(t, walked, ms)
				for _, m := range ms {
					require.Equal(t, v.Get(string(m.Key)), Lookup(ms, string(m.Key)))
				}
			}
			// EachObjectMember sees what Each then EachMember see, with
			// sizes each string's StrLen (-1 for other values, and for all
			// without sizes).
			var one, sized, two, twoSized []string
			v.EachObjectMember(false, func(i int, k []byte, val Value, size int) bool {
				one = append(one, fmt.Sprint(i, string(k), string(val), size))
				return true
			})
			v.EachObjectMember(true, func(i int, k []byte, val Value, size int) bool {
				sized = append(sized, fmt.Sprint(i, string(k), string(val), size))
				return true
			})
			v.Each(func(i int, e Value) bool {
				e.EachMember(func(k []byte, val Value) bool {
					two = append(two, fmt.Sprint(i, string(k), string(val), -1))
					size := -1
					if val.Type() == String {
						size = val.StrLen()
					}
					twoSized = append(twoSized, fmt.Sprint(i, string(k), string(val), size))
					return true
				})
				return true
			})
			require.Equal(t, two, one)
			require.Equal(t, twoSized, sized)
			// StrLen counts what Str decodes (on valid UTF-8, where Str
			// does not substitute U+FFFD).
			if s := v.Get("s"); s.Type() == String && utf8.Valid(s) {
				require.Equal(t, len(s.Str()), s.StrLen(), "%s", s)
			}
			if v.Type() == String && utf8.Valid(v) {
				require.Equal(t, len(v.Str()), v.StrLen(), "%s", v)
			}
			var want any
			if json.Unmarshal(b, &want) != nil {
				return // a number beyond float64: jq clamps, encoding/json refuses
			}
			require.Equal(t, want, normalize(v.Decode()))
		}
	})
}

// requireCompactAsEncodingJSON holds AppendCompact to encoding/json's
// Compact: the same bytes where it answers, and an answer wherever Compact
// has one that it can give (no control bytes, shallow nesting).
func requireCompactAsEncodingJSON(t *testing.T, b []byte) {
	t.Helper()
	var want bytes.Buffer
	werr := json.Compact(&want, b)
	if IsCompact(b) {
		// Taken as it is (the CSV's tool inputs): what compaction, or
		// the fallback to the input on an error, would have written.
		if werr == nil {
			require.Equal(t, want.String(), string(b), "IsCompact(%q)", b)
		}
	}
	got, ok := AppendCompact([]byte("x"), b)
	if !ok {
		require.Equal(t, "x", string(got))
		if werr == nil && controlAt(b) < 0 && bytes.Count(b, []byte("["))+bytes.Count(b, []byte("{")) <= compactMaxDepth {
			t.Fatalf("AppendCompact gave up on %q, which Compact takes", b)
		}
		return
	}
	require.NoError(t, werr, "AppendCompact took %q", b)
	require.Equal(t, "x"+want.String(), string(got))
}

// TestAppendCompactOnCaptures: every line of the real captures, and each
// re-indented with spaces (json.Indent), compacts as encoding/json does.
func TestAppendCompactOnCaptures(t *testing.T) {
	eachCaptureLine(t, func(f string, n int, line []byte) {
		requireCompactAsEncodingJSON(t, line)
		if !json.Valid(line) {
			return // a capture's cut last line, or the empty one after the last newline
		}
		var spaced bytes.Buffer
		require.NoError(t, json.Indent(&spaced, line, "", " "))
		// Indent's newlines are control bytes: spaces only, so that the
		// fast path is the one tested.
		sp := bytes.ReplaceAll(spaced.Bytes(), []byte("\n"), []byte("  "))
		requireCompactAsEncodingJSON(t, sp)
		out, ok := AppendCompact(nil, sp)
		require.True(t, ok, "%s:%d", f, n)
		require.Equal(t, string(line), string(out), "%s:%d", f, n)
	})
	for _, s := range []string{"[1, 2]", `{"a" : "b c"}`, " 1 ", "[\"\t\"]", "[\n1]", `"\u0000"`, "[1,]", `{"a":}`,
		`{"a":"b \" c"}`, `{"a":"b \\"  }`, `{"a":"b`, `["\\\""]`, "[1,\r2]", `{"a":[{"b":"x y"} ,1]}`} {
		requireCompactAsEncodingJSON(t, []byte(s))
	}
}

// requireProjectedAsWhole decodes b through a projection (any input: no
// panic) and, when b is valid, finds along its paths what the whole tree
// holds there.
func requireProjectedAsWhole(t *testing.T, b []byte, valid bool) {
	t.Helper()
	var p Projection
	p.Add("type")
	p.Add("message", "content", 1, "text")
	p.Reach("a", 0)
	cut := DecodeProjected(b, &p)
	if !valid {
		return
	}
	whole := Value(b).Decode()
	at := func(v any, path ...any) any {
		for _, s := range path {
			switch k := s.(type) {
			case string:
				m, ok := v.(map[string]any)
				if !ok {
					return v // another kind: kept whole
				}
				v = m[k]
			case int:
				a, ok := v.([]any)
				if !ok {
					return v
				}
				if k >= len(a) {
					return nil
				}
				v = a[k]
			}
		}
		return v
	}
	for _, path := range [][]any{{"type"}, {"message", "content", 1, "text"}} {
		require.Equal(t, normalize(at(whole, path...)), normalize(at(cut, path...)), "%v of %q", path, b)
	}
}

// TestKeyEqual: a raw key equals a name when it is the name byte for byte
// or once its escapes are decoded, and not otherwise, whatever its length
// beside the name's (the comparison tells most keys apart by length).
func TestKeyEqual(t *testing.T) {
	tests := []struct {
		raw, key string
		want     bool
	}{
		{`type`, "type", true},
		{`typ`, "type", false},
		{`types`, "type", false},
		{`tyPe`, "type", false},
		{`\u0074ype`, "type", true},
		{`\u0074ypo`, "type", false},
		{`t\u0079p\u0065`, "type", true},
		{`\u00`, "type", false},
		{`t\"pe`, "type", false},
		{`\u0074\u0079\u0070\u0065`, "type", true},
		{`t\ype`, "type", false},
		{``, "", true},
		{`\u0061`, "", false},
		// Longer than the name: told apart by the first byte when it is
		// ASCII and no backslash, else decoded.
		{`input_tokens\u0000`, "input_tokens", false},
		{`cache_read_input_tokens`, "input_tokens", false},
		{`i\u006eput_tokens`, "input_tokens", true},
		{`inp\u0075t_tokens`, "input_tokens", true},
		{`\u0069nput_tokens`, "input_tokens", true},
		{`x\u006eput_tokens`, "input_tokens", false},
		{"\xc3\xa9\u0074ype", "type", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, keyEqual([]byte(tt.raw), tt.key), "%s vs %s", tt.raw, tt.key)
		// Lookup tells the longer keys apart by their first byte itself
		// (keyEqual's look, without the call): the same answers.
		found := Lookup([]Member{{Key: []byte(tt.raw), Val: Value("1")}, {Key: []byte("zz"), Val: Value("2")}}, tt.key)
		assert.Equal(t, tt.want, found != nil, "Lookup %s in %s", tt.key, tt.raw)
	}
}

// TestAppendStrAsStr proves that AppendStr appends exactly what Str returns,
// after what dst held, for every string of every capture (the text of each
// content block among them), for strings with every kind of escape, bad
// escapes and invalid UTF-8, and for values that are not strings.
func TestAppendStrAsStr(t *testing.T) {
	check := func(v Value, where string) {
		t.Helper()
		prefix := []byte("kept\n")
		got := v.AppendStr(append([]byte(nil), prefix...))
		require.Equal(t, string(prefix)+v.Str(), string(got), where)
	}
	strs := 0
	eachCaptureLine(t, func(f string, n int, line []byte) {
		if len(line) == 0 {
			return
		}
		var walk func(v Value)
		walk = func(v Value) {
			switch v.Type() {
			case String:
				strs++
				check(v, fmt.Sprintf("%s:%d %.60s", f, n, v))
			case Object:
				v.EachMember(func(_ []byte, m Value) bool { walk(m); return true })
			case Array:
				v.Each(func(_ int, e Value) bool { walk(e); return true })
			}
		}
		walk(Parse(line))
	})
	require.Greater(t, strs, 10000)
	for _, raw := range []string{
		`""`, `"plain"`, `"a\"b\\c\/d\b\f\n\r\t"`, `"\u00e9\u4e2d\ud83d\ude00"`, `"\ud83d"`, `"\u12g4"`,
		`"\q"`, `"ends with \\"`, "\"bad \xff utf-8 \xc3\"", "\"bad \xff and \\n escape\"",
		`"` + strings.Repeat(`x\"`, 5000) + `"`, `12`, `null`, `{"a":"b"}`, `["a"]`, `"`,
	} {
		check(Value(raw), raw[:min(len(raw), 40)])
	}
}

// TestPlainQuoteAgreesWithTheLoops holds the word-at-a-time look for a
// short plain string's closing quote to the general loops: wherever it
// answers, its quote is stringEnd's, and (looking for control bytes too)
// the string is one validString accepts; it answers nothing for a string
// with a backslash or control byte before its quote. Strings of every
// length up to past its reach, with a backslash, a control byte, an
// escaped quote or a multibyte rune at every place, and the end of the
// input at every place.
func TestPlainQuoteAgreesWithTheLoops(t *testing.T) {
	specials := []string{`\\`, `\"`, "\x01", "\t", "é", `\u0041`}
	var inputs []string
	for n := 0; n <= 41; n++ {
		body := strings.Repeat("a", n)
		inputs = append(inputs, `"`+body+`"`, `"`+body+`":1}`, `"`+body)
		for at := 0; at <= n; at++ {
			for _, sp := range specials {
				s := body[:at] + sp + body[at:]
				inputs = append(inputs, `"`+s+`","x":2}`, `"`+s+`"`)
			}
		}
	}
	for _, in := range inputs {
		b := []byte(in)
		for _, ctl := range []bool{false, true} {
			q := plainQuote(b, 1, ctl)
			if q < 0 {
				continue
			}
			require.Equal(t, stringEnd(b, 0), q+1, "%q ctl=%v", in, ctl)
			body := b[1:q]
			require.NotContains(t, string(body), `\`, "%q", in)
			if ctl {
				end, err := validString(b, 0)
				require.NoError(t, err, "%q", in)
				require.Equal(t, q+1, end, "%q", in)
				require.Equal(t, -1, controlAt(body), "%q", in)
			}
		}
	}
}

// TestFrameMembersMatchesWalkMembers holds the framing walk's happy path
// (frameMembers, what Members runs) to the general walk it hands anything
// else to: the same members and the same error, on every line of every
// capture, and on each line cut at a spread of places, glued to the next
// line (a lost newline), with spaces around its tokens, and with a stray
// byte after it.
func TestFrameMembersMatchesWalkMembers(t *testing.T) {
	check := func(what string, b []byte) {
		want, wantErr := walkMembers(b, nil, false, 0)
		got, gotErr := frameMembers(b, nil)
		require.Equal(t, wantErr, gotErr, what)
		require.Equal(t, len(want), len(got), what)
		for i := range want {
			require.Equal(t, string(want[i].Key), string(got[i].Key), what)
			require.Equal(t, string(want[i].Val), string(got[i].Val), what)
		}
	}
	var prev []byte
	eachCaptureLine(t, func(file string, n int, line []byte) {
		what := fmt.Sprintf("%s:%d", file, n)
		check(what, line)
		for _, at := range []int{1, 2, 7, len(line) / 3, len(line) / 2, len(line) - 2, len(line) - 1} {
			if at > 0 && at < len(line) {
				check(fmt.Sprintf("%s cut at %d", what, at), line[:at])
			}
		}
		if prev != nil {
			check(what+" glued to the one before", append(append([]byte{}, prev...), line...))
		}
		check(what+" spaced", bytes.ReplaceAll(bytes.ReplaceAll(line, []byte(`":`), []byte(`" : `)), []byte(`,"`), []byte(` , "`)))
		check(what+" and a stray byte", append(append([]byte{}, line...), 'x'))
		prev = append(prev[:0], line...)
	})
	for _, b := range []string{``, `{`, `}`, `{}`, `{ }`, ` {"a":1}`, `{"a":1} `, `{"a"}`, `{"a":}`, `{"a":1,}`, `{"a":1 "b":2}`, `{"a\"b":1}`, `[1]`, `{"a":[}`, `{"a":"\`} {
		check(b, []byte(b))
	}
}
