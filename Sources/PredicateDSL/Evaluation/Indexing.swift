internal import Foundation

/// `base[index]`, `[FIRST]`, `[LAST]`, `[SIZE]`.
package enum Indexing {
  /// `base[index]`: an array element or a record entry; nil base gives nil.
  package static func element(of base: FilterValue, at index: FilterValue) throws(ValueFault) -> FilterValue {
    switch (base, index) {
    case (.null, _): return .null
    case (.array(let elements), _):
      guard case .int(let position)? = NumericValue(index) else {
        throw .typeMismatch("an array index must be an integer, found \(index.typeName) \(index.shortDescription)")
      }
      guard position >= 0, position < elements.count else {
        throw ValueFault(
          .indexOutOfRange, "index \(position) is out of range for an array of \(elements.count) elements")
      }
      return elements[Int(position)]
    case (.record(let record), .string(let key)):
      return record[key] ?? .null
    default:
      throw .typeMismatch(
        "cannot index \(base.typeName) \(base.shortDescription) with \(index.typeName) \(index.shortDescription)")
    }
  }

  /// `[FIRST]`, `[LAST]`, `[SIZE]` (or `[…]` through `element(of:at:)`).
  package static func apply(_ index: ExpressionSyntax.Subscript, to base: FilterValue) throws(ValueFault) -> FilterValue
  {
    switch (index, base) {
    case (_, .null): return .null
    case (.first, .array(let elements)): return elements.first ?? .null
    case (.last, .array(let elements)): return elements.last ?? .null
    case (.size, _):
      if case .string = base { break }
      guard let elements = base.collectionElements else { break }
      return .int(Int64(elements.count))
    default: break
    }
    throw .typeMismatch("cannot apply \(index.text) to \(base.typeName) \(base.shortDescription)")
  }
}
