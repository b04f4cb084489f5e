/// HDR10+ dynamic metadata (SMPTE ST 2094-40) as an ITU-T T.35 message carries it (ANSI/CTA-861-H
/// Annex S): in an H.264/HEVC `user_data_registered_itu_t_t35` SEI message or an AV1
/// `METADATA_TYPE_ITUT_T35` OBU. VAToolbox passes the message through as it is, from
/// `itu_t_t35_country_code` on (Apple's `kCMSampleAttachmentKey_HDR10PlusPerFrameData`).
public enum HDR10Plus {
    /// `itu_t_t35_country_code` 0xB5 (United States), `itu_t_t35_terminal_provider_code` 0x003C
    /// (Samsung), `itu_t_t35_terminal_provider_oriented_code` 0x0001, `application_identifier` 4.
    static let header: [UInt8] = [0xB5, 0x00, 0x3C, 0x00, 0x01, 0x04]

    /// Whether a T.35 message, from its country code on, is HDR10+.
    public static func isHDR10Plus(_ message: ArraySlice<UInt8>) -> Bool {
        message.count > header.count && message.prefix(header.count).elementsEqual(header)
    }
}
