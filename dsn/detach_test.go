package dsn

import (
	"bytes"
	"reflect"
	"runtime"
	"testing"
)

// TestFinalReportOwnsItsMemory checks that the Report Parse returns
// points into no memory it does not own: every string field, of the
// Report, its recipients and its original, set to a view of one buffer,
// and its lists in arrays of the caller, keep their values when the buffer
// and the arrays are overwritten. A field added to Report and forgotten in
// detach or in textSize (the room detach has for the strings) fails here.
func TestFinalReportOwnsItsMemory(t *testing.T) {
	for _, n := range []int{1, 3} { // one recipient (in the report's block) and several
		buf := []byte("abcdefghijklmnopqrstuvwxyz")
		s := view(buf)
		var from Report
		recs := make([]Recipient, n)
		from.Recipients = recs
		filled := fillStrings(reflect.ValueOf(&from).Elem(), s)
		if filled < 20 {
			t.Fatalf("filled %d string fields, expected every one of Report's (20 or more)", filled)
		}
		if got, want := textSize(&from), filled*len(s); got != want {
			t.Fatalf("%d recipients: textSize = %d, want %d for %d strings: a field is missing from textSize", n, got, want, filled)
		}
		r := finalReport(&from)
		for i := range buf {
			buf[i] = '#'
		}
		for i := range recs {
			clear(recs[i].Aliases)
			recs[i] = Recipient{}
		}
		clear(from.Original.Received)
		if len(r.Recipients) != n {
			t.Fatalf("%d recipients after finalReport, want %d", len(r.Recipients), n)
		}
		if bad := stringsNot(reflect.ValueOf(*r), "abcdefghijklmnopqrstuvwxyz", ""); bad != "" {
			t.Errorf("%d recipients: field %s changed with the memory it was read from: finalReport does not copy it", n, bad)
		}
	}
}

// fillStrings sets every string reachable in v (slices of strings get two
// elements) to s and returns how many it set.
func fillStrings(v reflect.Value, s string) int {
	switch v.Kind() {
	case reflect.String:
		v.SetString(s)
		return 1
	case reflect.Struct:
		n := 0
		for i := 0; i < v.NumField(); i++ {
			n += fillStrings(v.Field(i), s)
		}
		return n
	case reflect.Slice:
		if v.Len() == 0 && v.Type().Elem().Kind() == reflect.String {
			v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		}
		n := 0
		for i := 0; i < v.Len(); i++ {
			n += fillStrings(v.Index(i), s)
		}
		return n
	}
	return 0
}

// stringsNot returns the path of the first string in v that is not want.
func stringsNot(v reflect.Value, want, path string) string {
	switch v.Kind() {
	case reflect.String:
		if v.String() != want {
			return path
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if bad := stringsNot(v.Field(i), want, path+"."+v.Type().Field(i).Name); bad != "" {
				return bad
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			if bad := stringsNot(v.Index(i), want, path+"[]"); bad != "" {
				return bad
			}
		}
	}
	return ""
}

// TestReportBlockSizesAreSizeClasses checks that each reportBlockWith
// takes the size class it is meant to fill (runtime/sizeclasses.go), its
// header included: the room for text is all the allocation gives.
func TestReportBlockSizesAreSizeClasses(t *testing.T) {
	for _, c := range []struct {
		alloc func() any
		want  uint64
	}{
		{func() any { return new(reportBlockWith[[reportText1024]byte]) }, 1024},
		{func() any { return new(reportBlockWith[[reportText1152]byte]) }, 1152},
		{func() any { return new(reportBlockWith[[reportText1280]byte]) }, 1280},
		{func() any { return new(reportBlockWith[[reportText1408]byte]) }, 1408},
		{func() any { return new(reportBlockWith[[reportText1536]byte]) }, 1536},
		{func() any { return new(reportBlockWith[[reportText1792]byte]) }, 1792},
		{func() any { return new(reportBlockWith[[reportText2048]byte]) }, 2048},
		{func() any { return new(reportBlockWith[[reportText2304]byte]) }, 2304},
		{func() any { return new(reportBlockWith[[reportText2688]byte]) }, 2688},
		{func() any { return new(reportBlockWith[[reportText3072]byte]) }, 3072},
		{func() any { return new(reportBlockWith[[reportText3200]byte]) }, 3200},
		{func() any { return new(reportBlockWith[[reportText3456]byte]) }, 3456},
		{func() any { return new(reportBlockWith[[reportText4096]byte]) }, 4096},
	} {
		if got := bytesPerAlloc(c.alloc); got != c.want {
			t.Errorf("a reportBlockWith meant for %d bytes takes %d", c.want, got)
		}
	}
}

// reportBlockSink keeps what bytesPerAlloc allocates on the heap.
var reportBlockSink any

// bytesPerAlloc returns the bytes the heap gives to one call of alloc:
// the least of a few runs of many calls, in case some other goroutine
// allocated during one.
func bytesPerAlloc(alloc func() any) uint64 {
	const calls = 100
	least := uint64(1 << 62)
	for range 5 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range calls {
			reportBlockSink = alloc()
		}
		runtime.ReadMemStats(&after)
		least = min(least, (after.TotalAlloc-before.TotalAlloc)/calls)
	}
	return least
}

// TestFinalReportTextSizes checks finalReport with strings of every size
// of reportBlockWith and beyond: each string keeps its value when the
// memory it was read from is overwritten.
func TestFinalReportTextSizes(t *testing.T) {
	for _, n := range []int{1, reportText1024, reportText1024 + 1, reportText1536 + 1, reportText2048, reportText2688, reportText3072 + 1, reportText4096, reportText4096 + 1, 20000} {
		buf := bytes.Repeat([]byte("x"), n)
		want := string(buf)
		from := Report{Notice: view(buf)}
		r := finalReport(&from)
		clear(buf)
		if r.Notice != want {
			t.Errorf("%d bytes of text: the Notice changed with the memory it was read from", n)
		}
	}
}
