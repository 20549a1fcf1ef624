/// What a format specifier asks its argument to be.
enum FormatConversion {
  /// `%@`: any value, substituted as a constant.
  case object
  /// `%K`: a string, substituted as a key path.
  case keyPath
  /// `%d %i %u %x %o %c` and friends: an integer.
  case integer
  /// `%f %e %g` and friends: a number.
  case real
  /// `%s`: a string constant.
  case string

  init?(byte: UInt8) {
    switch byte {
    case UInt8(ascii: "@"): self = .object
    case UInt8(ascii: "K"): self = .keyPath
    case UInt8(ascii: "d"), UInt8(ascii: "D"), UInt8(ascii: "i"), UInt8(ascii: "u"),
      UInt8(ascii: "U"), UInt8(ascii: "x"), UInt8(ascii: "X"), UInt8(ascii: "o"),
      UInt8(ascii: "O"), UInt8(ascii: "c"), UInt8(ascii: "C"):
      self = .integer
    case UInt8(ascii: "f"), UInt8(ascii: "F"), UInt8(ascii: "e"), UInt8(ascii: "E"),
      UInt8(ascii: "g"), UInt8(ascii: "G"), UInt8(ascii: "a"), UInt8(ascii: "A"):
      self = .real
    case UInt8(ascii: "s"), UInt8(ascii: "S"):
      self = .string
    default:
      return nil
    }
  }

  /// The constant an argument stands for under this conversion, or nil
  /// when the argument does not fit it (and for `%K`, which gives a key
  /// path, not a constant): `%d` takes a Boolean as 0 or 1, `%f` an integer
  /// as a real.
  @inline(__always)
  func constant(from argument: FilterValue) -> FilterValue? {
    switch self {
    case .object:
      return argument
    case .keyPath:
      return nil
    case .integer:
      switch argument {
      case .int: return argument
      case .bool(let flag): return .int(flag ? 1 : 0)
      default: return nil
      }
    case .real:
      switch argument {
      case .double: return argument
      case .int(let number): return .double(Double(number))
      default: return nil
      }
    case .string:
      guard case .string = argument else { return nil }
      return argument
    }
  }

  /// What the conversion's argument must be, as a mismatch's message
  /// says it.
  var expectation: String {
    switch self {
    case .object: "any value"
    case .keyPath: "a string naming a key path"
    case .integer: "an integer"
    case .real: "a number"
    case .string: "a string"
    }
  }
}
