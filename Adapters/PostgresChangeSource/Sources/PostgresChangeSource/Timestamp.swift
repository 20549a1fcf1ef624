/// Parses PostgreSQL's ISO text form of dates and timestamps, as a session
/// with `DateStyle = ISO` prints them: `2026-01-02`, `2026-01-02 03:04:05`,
/// `2026-01-02 03:04:05.123456+00`, `2026-01-02 03:04:05-07:30`. A timestamp
/// without a zone is read as UTC.
///
/// Every value PostgreSQL can hold reads exactly: years of more than four
/// digits (`294276-12-31 23:59:59+00`), years before the common era
/// (`0044-03-15 BC`, the proleptic Gregorian calendar's year -43), and
/// `infinity` and `-infinity`, which read as infinite seconds.
enum Timestamp {
  /// Seconds from 2001-01-01 00:00:00 UTC, or nil for other text.
  static func secondsSinceReferenceDate(_ text: String) -> Double? {
    switch text {
    case "infinity": return .infinity
    case "-infinity": return -.infinity
    default: break
    }
    var bytes = Array(text.utf8)
    let beforeCommonEra = bytes.count > 3 && bytes.suffix(3).elementsEqual(" BC".utf8)
    if beforeCommonEra { bytes.removeLast(3) }
    var scanner = Scanner(bytes)
    guard let written = scanner.number(digits: 4...7), scanner.take("-"), let month = scanner.number(digits: 2),
      scanner.take("-"), let day = scanner.number(digits: 2), (1...12).contains(month), (1...31).contains(day)
    else { return nil }
    // 1 BC is the year 0 of the proleptic Gregorian calendar.
    let year = beforeCommonEra ? 1 - written : written
    var seconds = Double(daysFromCivil(year: year, month: month, day: day) - 11_323) * 86_400
    if scanner.isAtEnd { return seconds }
    guard scanner.take(" ") || scanner.take("T"), let hour = scanner.number(digits: 2), scanner.take(":"),
      let minute = scanner.number(digits: 2), scanner.take(":"), let second = scanner.number(digits: 2),
      hour < 24, minute < 60, second < 61
    else { return nil }
    seconds += Double(hour * 3600 + minute * 60 + second)
    if scanner.take(".") {
      var fraction = 0.0
      var scale = 0.1
      var any = false
      while let digit = scanner.digit() {
        fraction += Double(digit) * scale
        scale /= 10
        any = true
      }
      guard any else { return nil }
      seconds += fraction
    }
    if scanner.isAtEnd { return seconds }
    let sign: Double
    if scanner.take("+") {
      sign = 1
    } else if scanner.take("-") {
      sign = -1
    } else {
      return nil
    }
    guard let zoneHours = scanner.number(digits: 2) else { return nil }
    var offset = zoneHours * 3600
    if scanner.take(":") {
      guard let zoneMinutes = scanner.number(digits: 2) else { return nil }
      offset += zoneMinutes * 60
      if scanner.take(":") {
        guard let zoneSeconds = scanner.number(digits: 2) else { return nil }
        offset += zoneSeconds
      }
    }
    guard scanner.isAtEnd else { return nil }
    return seconds - sign * Double(offset)
  }

  /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar
  /// (Howard Hinnant's algorithm); 2001-01-01 is day 11,323.
  static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  private struct Scanner {
    let bytes: [UInt8]
    var index = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { index == bytes.count }

    mutating func take(_ character: Unicode.Scalar) -> Bool {
      guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
      index += 1
      return true
    }

    mutating func digit() -> Int? {
      guard index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else { return nil }
      defer { index += 1 }
      return Int(bytes[index] - UInt8(ascii: "0"))
    }

    mutating func number(digits: Int) -> Int? {
      number(digits: digits...digits)
    }

    /// A number of at least `digits.lowerBound` digits, and as many more as
    /// follow up to `digits.upperBound`.
    mutating func number(digits: ClosedRange<Int>) -> Int? {
      var value = 0
      var count = 0
      while count < digits.upperBound, let digit = digit() {
        value = value * 10 + digit
        count += 1
      }
      return count >= digits.lowerBound ? value : nil
    }
  }
}
