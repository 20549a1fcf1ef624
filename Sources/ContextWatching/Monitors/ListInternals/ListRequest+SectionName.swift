import PredicateDSL

extension ListRequest {
  /// A section name's first letter, capitalised: NSFetchedResultsController's
  /// default section index title. Nil for an empty name.
  static func defaultSectionIndexTitle(_ name: String) -> String? {
    name.first.map { String($0).uppercased() }
  }

  /// A section value as text, the same on every machine: strings as they
  /// are, numbers in decimal, Booleans `true` or `false`, dates in ISO 8601
  /// in UTC, nil as nil.
  ///
  /// A date at midnight UTC is its day alone (`2024-01-01`); any other is
  /// the day and the time (`2024-01-01T09:30:00Z`), with milliseconds when
  /// the time has a fraction of a second (`2024-01-01T09:30:00.250Z`).
  static func defaultSectionName(_ value: FilterValue) -> String? {
    switch value {
    case .null: nil
    case .string(let text): text
    case .bool(let flag): flag ? "true" : "false"
    case .int(let number): String(number)
    case .double(let number): number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    case .date(let seconds): isoDate(secondsSinceReferenceDate: seconds) ?? value.description
    default: value.description
    }
  }

  /// Seconds between 1970-01-01 and 2001-01-01, both at midnight UTC.
  private static let referenceDateOffset: Int64 = 978_307_200

  /// The date `seconds` after 2001-01-01T00:00:00Z in ISO 8601, in UTC, to
  /// the millisecond; nil for a time too far from 2001 (beyond about
  /// 300,000 years) or not finite.
  static func isoDate(secondsSinceReferenceDate seconds: Double) -> String? {
    guard seconds.isFinite, abs(seconds) < 1e13 else { return nil }
    // Whole milliseconds since 1970, rounded to the nearest.
    let milliseconds = Int64((seconds * 1000).rounded()) + referenceDateOffset * 1000
    let (days, millisecondOfDay) = floorDivision(milliseconds, 86_400_000)
    let (year, month, day) = civilDate(daysSince1970: days)
    var text = "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))"
    guard millisecondOfDay != 0 else { return text }
    let second = millisecondOfDay / 1000
    text += "T\(padded(second / 3600, 2)):\(padded(second / 60 % 60, 2)):\(padded(second % 60, 2))"
    if millisecondOfDay % 1000 != 0 { text += ".\(padded(millisecondOfDay % 1000, 3))" }
    return text + "Z"
  }

  /// The quotient rounded down and the remainder, which is never negative.
  private static func floorDivision(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
    let remainder = a % b
    return remainder < 0 ? (a / b - 1, remainder + b) : (a / b, remainder)
  }

  /// The proleptic Gregorian year, month and day of a day counted from
  /// 1970-01-01 (Howard Hinnant's `civil_from_days`).
  private static func civilDate(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
    let shifted = days + 719_468
    let (era, dayOfEra) = floorDivision(shifted, 146_097)
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    return (year, month, day)
  }

  /// `number` in decimal with leading zeros to `width` digits, after a `-`
  /// when negative.
  private static func padded(_ number: Int64, _ width: Int) -> String {
    let digits = String(number.magnitude)
    let zeros = String(repeating: "0", count: max(0, width - digits.count))
    return (number < 0 ? "-" : "") + zeros + digits
  }
}
