// The canonical printout, in the style of Apple's `predicateFormat`. The
// rules are in docs/predicate-language.md; the one that matters most is that
// the printout of any tree the parser can produce parses back to that tree.

extension PredicateSyntax: CustomStringConvertible {
  /// The canonical format string: `age == 30 AND (a == 1 OR b == 2)`.
  ///
  /// Keywords are upper case, `=` prints as `==`, strings are double-quoted,
  /// and every compound nested in another is parenthesised, so the text does
  /// not depend on the precedence of `AND` over `OR`. Parsing the printout
  /// gives back an equal tree.
  ///
  /// ```swift
  /// let syntax = try PredicateSyntax(parsing: "a = 1 and (b=2 or c<>3)")
  /// print(syntax)  // a == 1 AND (b == 2 OR c != 3)
  /// ```
  public var description: String {
    var printer = SyntaxPrinter()
    printer.print(self)
    return printer.output
  }
}

extension ExpressionSyntax: CustomStringConvertible {
  /// The canonical text of the expression, as it prints inside a predicate.
  public var description: String {
    var printer = SyntaxPrinter()
    printer.print(self)
    return printer.output
  }
}

extension FilterValue: CustomStringConvertible {
  /// The value as a predicate constant: `"text"`, `42`, `TRUE`, `nil`,
  /// `{1, 2}`, `CAST(725846400.0, "NSDate")`.
  public var description: String {
    var printer = SyntaxPrinter()
    printer.print(self)
    return printer.output
  }
}

struct SyntaxPrinter {
  var output = ""

  mutating func print(_ predicate: PredicateSyntax) {
    switch predicate.kind {
    case .constant(let value):
      output += value ? "TRUEPREDICATE" : "FALSEPREDICATE"
    case .comparison(let comparison):
      print(comparison)
    case .not(let operand):
      output += "NOT "
      printOperand(operand)
    case .and(let operands):
      printCompound(operands, separator: " AND ", empty: "TRUEPREDICATE")
    case .or(let operands):
      printCompound(operands, separator: " OR ", empty: "FALSEPREDICATE")
    }
  }

  /// An empty compound cannot be written; it prints as the constant it
  /// evaluates to.
  private mutating func printCompound(_ operands: [PredicateSyntax], separator: String, empty: String) {
    guard !operands.isEmpty else {
      output += empty
      return
    }
    for (index, operand) in operands.enumerated() {
      if index > 0 { output += separator }
      printOperand(operand)
    }
  }

  /// A predicate inside NOT, AND or OR: compounds get parentheses.
  private mutating func printOperand(_ predicate: PredicateSyntax) {
    switch predicate.kind {
    case .and(let operands) where operands.count > 1, .or(let operands) where operands.count > 1:
      output += "("
      print(predicate)
      output += ")"
    default:
      print(predicate)
    }
  }

  mutating func print(_ comparison: ComparisonSyntax) {
    switch comparison.quantifier {
    case .any: output += "ANY "
    case .all: output += "ALL "
    case .none: output += "NONE "
    case .direct: break
    }
    print(comparison.lhs)
    output += " "
    output += comparison.operator.text
    if !comparison.options.isEmpty {
      output += "[" + comparison.options.letters + "]"
    }
    output += " "
    print(comparison.rhs)
  }

  mutating func print(_ expression: ExpressionSyntax) {
    switch expression.kind {
    case .constant(let value):
      print(value)
    case .evaluatedObject:
      output += "SELF"
    case .keyPath(let path):
      printKeyPath(path)
    case .variable(let name):
      output += "$" + name
    case .member(let base, let path):
      printPostfixBase(base)
      output += "."
      printKeyPath(path)
    case .index(let base, let subscriptValue):
      printPostfixBase(base)
      output += "["
      switch subscriptValue {
      case .first: output += "FIRST"
      case .last: output += "LAST"
      case .size: output += "SIZE"
      case .at(let index): print(index)
      }
      output += "]"
    case .aggregate(let elements):
      printList(elements, open: "{", close: "}")
    case .negation(let operand):
      // `--a`, not `-(-a)`: parentheses would cost a level of nesting each.
      output += "-"
      switch operand.kind {
      case .constant(.int), .constant(.double), .arithmetic:
        output += "("
        print(operand)
        output += ")"
      default:
        print(operand)
      }
    case .arithmetic(let op, let lhs, let rhs):
      printArithmeticOperand(lhs, of: op, isRight: false)
      output += " " + op.text + " "
      printArithmeticOperand(rhs, of: op, isRight: true)
    case .function(let function, let arguments):
      output += function.selector
      printList(arguments, open: "(", close: ")")
    case .cast(let value, let type):
      output += "CAST("
      print(value)
      output += ", "
      printString(type)
      output += ")"
    case .subquery(let collection, let variable, let predicate):
      output += "SUBQUERY("
      print(collection)
      output += ", $" + variable + ", "
      print(predicate)
      output += ")"
    case .ternary(let condition, let whenTrue, let whenFalse):
      output += "TERNARY("
      print(condition)
      output += ", "
      print(whenTrue)
      output += ", "
      print(whenFalse)
      output += ")"
    }
  }

  private mutating func printList(_ elements: [ExpressionSyntax], open: String, close: String) {
    output += open
    for (index, element) in elements.enumerated() {
      if index > 0 { output += ", " }
      print(element)
    }
    output += close
  }

  /// Parentheses only where precedence and left-associativity need them:
  /// `a + b + c`, `(a + b) * c`, `a - (b - c)`. Apple parenthesises every
  /// nested operation; minimal parentheses keep the printout from nesting
  /// deeper than the tree, so a long chain prints and parses back within
  /// the parser's depth limit.
  private mutating func printArithmeticOperand(
    _ operand: ExpressionSyntax, of parent: ExpressionSyntax.ArithmeticOperator, isRight: Bool
  ) {
    if case .arithmetic(let op, _, _) = operand.kind,
      isRight ? op.precedence <= parent.precedence : op.precedence < parent.precedence
    {
      output += "("
      print(operand)
      output += ")"
    } else {
      print(operand)
    }
  }

  /// The base of `.key` or `[index]`: anything that is not a primary gets
  /// parentheses, and so do numbers (`(-1).x` is not `-(1.x)`).
  private mutating func printPostfixBase(_ base: ExpressionSyntax) {
    switch base.kind {
    case .negation, .arithmetic, .constant(.int), .constant(.double):
      output += "("
      print(base)
      output += ")"
    default:
      print(base)
    }
  }

  /// Keys that are reserved words get a `#`.
  private mutating func printKeyPath(_ path: String) {
    var first = true
    for component in path.split(separator: ".", omittingEmptySubsequences: false) {
      if !first { output += "." }
      first = false
      if Keyword.allSpellings.contains(component.uppercased()) { output += "#" }
      output += component
    }
  }

  mutating func print(_ value: FilterValue) {
    switch value {
    case .null:
      output += "nil"
    case .bool(let flag):
      output += flag ? "TRUE" : "FALSE"
    case .int(let number):
      output += String(number)
    case .double(let number):
      printDouble(number)
    case .string(let text):
      printString(text)
    case .date(let seconds):
      output += "CAST("
      printDouble(seconds)
      output += ", \"NSDate\")"
    case .uuid(let bits):
      output += "CAST(\"" + UUIDText.format(bits) + "\", \"NSUUID\")"
    case .data(let bytes):
      output += "CAST(\"" + Base64.encode(bytes) + "\", \"NSData\")"
    case .array(let elements):
      printValues(elements)
    case .set(let elements):
      // Sets have no order; sort by printed text so the printout is stable.
      output += "CAST("
      printSorted(elements.map(\.description))
      output += ", \"NSSet\")"
    case .record(let entries):
      output += "CAST("
      printSorted(
        entries.sorted { $0.key < $1.key }.map {
          FilterValue.array([.string($0.key), $0.value]).description
        }, sort: false)
      output += ", \"NSDictionary\")"
    }
  }

  private mutating func printValues(_ values: [FilterValue]) {
    output += "{"
    for (index, value) in values.enumerated() {
      if index > 0 { output += ", " }
      print(value)
    }
    output += "}"
  }

  private mutating func printSorted(_ texts: [String], sort: Bool = true) {
    output += "{" + (sort ? texts.sorted() : texts).joined(separator: ", ") + "}"
  }

  /// The shortest text that reads back as the same double; non-finite
  /// values, which no literal can spell, as a cast of their name.
  private mutating func printDouble(_ number: Double) {
    if number.isFinite {
      output += number.description
    } else {
      output += "CAST(\"" + (number.isNaN ? "nan" : number < 0 ? "-inf" : "inf") + "\", \"NSNumber\")"
    }
  }

  /// Double-quoted, with `"`, `\` and control characters escaped.
  mutating func printString(_ text: String) {
    output += "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": output += "\\\""
      case "\\": output += "\\\\"
      case "\n": output += "\\n"
      case "\t": output += "\\t"
      case "\r": output += "\\r"
      case "\u{00}"..."\u{1F}", "\u{7F}":
        let hex = String(scalar.value, radix: 16, uppercase: true)
        output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default:
        output.unicodeScalars.append(scalar)
      }
    }
    output += "\""
  }
}
