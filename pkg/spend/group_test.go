package spend

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDayKeyIsTheDateTimeFormatSays: Totals names a call's day without
// time.Format, and says the last day again while the date is the same.
// Whatever the zone (half- and quarter-hour offsets, a DST change at
// midnight, UTC) and whatever the order the calls come in (back and
// forth across midnight, so that a remembered day must not stick), each
// call lands in the row time.Format names.
func TestDayKeyIsTheDateTimeFormatSays(t *testing.T) {
	at := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339Nano, s)
		require.NoError(t, err)
		return tm
	}
	// Times around midnight in the zones below, out of order.
	times := []time.Time{
		at("2026-12-05T18:29:59.999Z"), at("2026-12-05T18:30:00Z"), at("2026-12-05T18:29:00Z"),
		at("2026-12-05T23:59:59Z"), at("2026-12-06T00:00:00Z"), at("2026-12-05T23:00:00Z"),
		at("2026-12-05T11:14:59Z"), at("2026-12-05T11:15:00Z"), at("2026-03-08T04:59:00Z"),
		at("2026-03-08T05:00:00Z"), at("2026-03-29T00:59:59Z"), at("2026-03-29T01:00:00Z"),
		at("2025-12-31T23:59:59Z"), at("2026-01-01T00:00:00Z"), at("2025-12-31T23:59:59Z"),
		at("0099-07-04T12:00:00Z"), {},
	}
	for _, zone := range []string{"UTC", "Asia/Kolkata", "Pacific/Chatham", "America/St_Johns", "America/Havana", "Europe/London", "Pacific/Kiritimati", "America/Adak"} {
		t.Run(zone, func(t *testing.T) {
			loc, err := time.LoadLocation(zone)
			require.NoError(t, err)
			got := NewTotals(By{ByDay}, loc, "", "")
			want := map[string]int{}
			for _, tm := range times {
				got.Add(Call{Time: tm})
				day := ""
				if !tm.IsZero() {
					day = tm.In(loc).Format("2006-01-02")
				}
				want[day]++
			}
			rows, _ := got.Rows()
			have := map[string]int{}
			for _, r := range rows {
				have[r.Keys[0]] = r.Calls
			}
			assert.Equal(t, want, have)
		})
	}
}
