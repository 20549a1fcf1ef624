import Foundation

extension JSONValue {
  /// A file that could not be read: `no such file`, `is a directory, not a
  /// file` or `the file cannot be read`.
  public struct FileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong with the file, without its path (the caller names it).
    public var description: String
  }

  /// The bytes of the file at `path`, for ``parse(_:)``.
  ///
  /// ```swift
  /// let bytes = try JSONValue.contents(ofFile: "schema.json")
  /// let json = try JSONValue.parse(bytes)
  /// ```
  ///
  /// - Parameter path: The file's path.
  /// - Returns: The file's bytes.
  /// - Throws: ``FileError`` when there is no such file, it is a directory,
  ///   or it cannot be read.
  /// - Complexity: O(*n*) in the file's size.
  public static func contents(ofFile path: String) throws(FileError) -> [UInt8] {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
      throw FileError(description: "no such file")
    }
    guard !isDirectory.boolValue else { throw FileError(description: "is a directory, not a file") }
    guard let data = FileManager.default.contents(atPath: path) else {
      throw FileError(description: "the file cannot be read")
    }
    return Array(data)
  }

  /// Reads the JSON value that fills the file at `path`.
  ///
  /// - Throws: ``FileError`` when the file cannot be read, or
  ///   ``JSONParseError`` (with line and byte) when it is not UTF-8 JSON.
  package static func parse(file path: String) throws -> JSONValue {
    try parse(contents(ofFile: path))
  }
}
