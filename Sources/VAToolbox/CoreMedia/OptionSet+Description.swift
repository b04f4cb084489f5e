extension OptionSet where RawValue: FixedWidthInteger {
    /// The members by name, the way Swift writes them: `[.asynchronous, .frameDropped]`, `[]`
    /// for none. Bits no name covers follow in hexadecimal (`[.asynchronous, 0x80]`), so a value
    /// always prints whole.
    ///
    /// - Parameter names: Every named member with its Swift name, in the order to print them.
    func describe(names: [(member: Self, name: String)]) -> String {
        var rest = rawValue
        var parts: [String] = []
        for (member, name) in names where member.rawValue != 0 && rawValue & member.rawValue == member.rawValue {
            parts.append("." + name)
            rest &= ~member.rawValue
        }
        if rest != 0 { parts.append("0x" + String(rest, radix: 16)) }
        return "[" + parts.joined(separator: ", ") + "]"
    }
}
