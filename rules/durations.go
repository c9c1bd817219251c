package rules

import (
	"strings"
	"sync"

	"golang.org/x/text/language"
)

// Durations in the reader's language. The duration facts (retried_for,
// retry_left, retry_age) are captured in English words ("1 day, 19 hours
// and 57 minutes", as cleanFact writes them); a translated explanation
// writes them in its own words ("1 Tag, 19 Stunden und 57 Minuten",
// "1日19時間57分") rather than mixing languages.

// durationFacts are the facts whose values are durations.
var durationFacts = [...]Fact{FactRetriedFor, FactRetryLeft, FactRetryAge}

// durationWords are the unit words of a language, singular and plural,
// by English unit, and the word joining the last part.
type durationWords struct {
	units map[string][2]string
	and   string // " und "; "" joins the parts without spaces (Japanese)
	space string // between the number and the unit
}

// durationLanguages are the words of the languages other than English, by
// base language, made on first use: an English reader never needs them,
// and the maps were a third of the package's allocations at start (issue
// 14: start-up).
var durationLanguages = sync.OnceValue(func() map[language.Base]durationWords {
	return map[language.Base]durationWords{
		mustBase("de"): {units: map[string][2]string{"week": {"Woche", "Wochen"}, "day": {"Tag", "Tage"},
			"hour": {"Stunde", "Stunden"}, "minute": {"Minute", "Minuten"}, "second": {"Sekunde", "Sekunden"}}, and: " und ", space: " "},
		mustBase("fr"): {units: map[string][2]string{"week": {"semaine", "semaines"}, "day": {"jour", "jours"},
			"hour": {"heure", "heures"}, "minute": {"minute", "minutes"}, "second": {"seconde", "secondes"}}, and: " et ", space: " "},
		mustBase("es"): {units: map[string][2]string{"week": {"semana", "semanas"}, "day": {"día", "días"},
			"hour": {"hora", "horas"}, "minute": {"minuto", "minutos"}, "second": {"segundo", "segundos"}}, and: " y ", space: " "},
		mustBase("ja"): {units: map[string][2]string{"week": {"週間", "週間"}, "day": {"日", "日"},
			"hour": {"時間", "時間"}, "minute": {"分", "分"}, "second": {"秒", "秒"}}},
	}
})

func mustBase(s string) language.Base {
	b, err := language.ParseBase(s)
	if err != nil {
		panic(err)
	}
	return b
}

// englishUnit returns the unit an English duration word names ("hours",
// "hrs", "min"), "" for any other word.
func englishUnit(w string) string {
	switch strings.ToLower(w) {
	case "week", "weeks":
		return "week"
	case "day", "days":
		return "day"
	case "hour", "hours", "hr", "hrs":
		return "hour"
	case "minute", "minutes", "min", "mins":
		return "minute"
	case "second", "seconds", "sec", "secs":
		return "second"
	}
	return ""
}

// localDuration writes an English duration ("5 days", "1 day, 19 hours and
// 57 minutes") in the words of language tag; a value it cannot read, or a
// language it has no words for, is kept as it is.
func localDuration(tag language.Tag, v string) string {
	base, _ := tag.Base()
	dw, ok := durationLanguages()[base]
	if !ok {
		return v
	}
	fields := strings.Fields(strings.ReplaceAll(v, ",", " , "))
	var parts []string
	for i := 0; i < len(fields); {
		f := fields[i]
		if f == "," || f == "and" {
			if len(parts) == 0 {
				return v
			}
			i++
			continue
		}
		if i+1 >= len(fields) {
			return v
		}
		n, unit := f, englishUnit(fields[i+1])
		if unit == "" || strings.Trim(n, "0123456789") != "" || n == "" {
			return v
		}
		w := dw.units[unit][1]
		if n == "1" {
			w = dw.units[unit][0]
		}
		parts = append(parts, n+dw.space+w)
		i += 2
	}
	if len(parts) == 0 {
		return v
	}
	if dw.and == "" {
		return strings.Join(parts, "")
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + dw.and + parts[len(parts)-1]
}

// localDurations rewrites the duration facts among vals (the slot values
// of a sentence) in the words of language lang (an index langIndex gave).
func localDurations(lang int, vals *slotValues) {
	if lang == 0 {
		return
	}
	ls := translations()
	if lang >= len(ls) {
		return
	}
	for _, f := range durationFacts {
		s := slotFact0 + slot(slotIndexOf(f))
		if vals[s] != "" {
			vals[s] = localDuration(ls[lang].tag, vals[s])
		}
	}
}
