/// An HEVC sequence parameter set (ITU-T H.265 7.3.2.2) read up to its transform hierarchy
/// depths, as libde265 1.0.11 (Debian's, libheif's decoder) reads it: the same bits, and the same
/// range checks it makes while reading, each of which makes it refuse the set without a word.
/// What it checks after reading, and prints on stderr, is `checkDecodable()`.
struct HEVCSequenceParameterSet: Equatable {
    struct ConformanceWindow: Equatable {
        var left = 0, right = 0, top = 0, bottom = 0
    }

    /// The set cannot be decoded; `reason` names the field and the check.
    struct Invalid: Error, Equatable {
        let reason: String
    }

    var maxSubLayers = 1
    var id = 0
    var chromaFormat = 1
    var separateColourPlanes = false
    /// `pic_width_in_luma_samples` and `pic_height_in_luma_samples` as coded.
    var width = 0, height = 0
    var conformanceWindow: ConformanceWindow?
    var bitDepthLuma = 8, bitDepthChroma = 8
    var log2MaxPictureOrderCountLSB = 4
    /// `sps_max_dec_pic_buffering_minus1 + 1` of each sub-layer coded (one unless
    /// `sps_sub_layer_ordering_info_present_flag`).
    var maxDecodedPictureBuffering: [Int] = []
    var log2MinCodingBlockSize = 3, log2DiffMaxMinCodingBlockSize = 0
    var log2MinTransformBlockSize = 2, log2DiffMaxMinTransformBlockSize = 0
    var maxTransformHierarchyDepthInter = 0, maxTransformHierarchyDepthIntra = 0

    /// libde265 keeps the picture size in 16 bits: these are the sides it checks and allocates.
    var storedWidth: Int { width & 0xFFFF }
    var storedHeight: Int { height & 0xFFFF }

    /// `nal`: the whole SPS NAL unit, its 2-byte header first.
    init(nal: ArraySlice<UInt8>) throws(Invalid) {
        var bits = HEVCBitReader(nal)
        bits.skip(16 + 4)
        maxSubLayers = bits.bits(3) + 1
        guard maxSubLayers <= 7 else { throw Invalid(reason: "sps_max_sub_layers_minus1 is 7, over 6") }
        bits.skip(1)
        Self.skipProfileTierLevel(&bits, maxSubLayers: maxSubLayers)
        id = try Self.value(&bits, "sps_seq_parameter_set_id")
        guard id <= 15 else { throw Invalid(reason: "sps_seq_parameter_set_id \(id) is over 15") }
        chromaFormat = try Self.value(&bits, "chroma_format_idc")
        if chromaFormat == 3 { separateColourPlanes = bits.flag() }
        guard chromaFormat <= 3 else { throw Invalid(reason: "chroma_format_idc \(chromaFormat) is over 3") }
        width = try Self.value(&bits, "pic_width_in_luma_samples")
        height = try Self.value(&bits, "pic_height_in_luma_samples")
        guard storedWidth > 0, storedHeight > 0 else { throw Invalid(reason: "the picture size \(width)x\(height) is empty") }
        if bits.flag() {
            conformanceWindow = ConformanceWindow(
                left: try Self.value(&bits, "conf_win_left_offset"),
                right: try Self.value(&bits, "conf_win_right_offset"),
                top: try Self.value(&bits, "conf_win_top_offset"),
                bottom: try Self.value(&bits, "conf_win_bottom_offset"))
        }
        bitDepthLuma = try Self.value(&bits, "bit_depth_luma_minus8") + 8
        bitDepthChroma = try Self.value(&bits, "bit_depth_chroma_minus8") + 8
        guard bitDepthLuma <= 16, bitDepthChroma <= 16 else {
            throw Invalid(reason: "the bit depth (luma \(bitDepthLuma), chroma \(bitDepthChroma)) is over 16")
        }
        log2MaxPictureOrderCountLSB = try Self.value(&bits, "log2_max_pic_order_cnt_lsb_minus4") + 4
        guard log2MaxPictureOrderCountLSB <= 16 else {
            throw Invalid(reason: "log2_max_pic_order_cnt_lsb_minus4 \(log2MaxPictureOrderCountLSB - 4) is over 12")
        }
        let allSubLayers = bits.flag()
        for _ in (allSubLayers ? 0 : maxSubLayers - 1)..<maxSubLayers {
            let buffering = try Self.value(&bits, "sps_max_dec_pic_buffering_minus1") + 1
            guard buffering <= 16 else { throw Invalid(reason: "sps_max_dec_pic_buffering_minus1 \(buffering - 1) is over 15") }
            maxDecodedPictureBuffering.append(buffering)
            _ = try Self.value(&bits, "sps_max_num_reorder_pics")
            _ = try Self.value(&bits, "sps_max_latency_increase_plus1")
        }
        log2MinCodingBlockSize = try Self.value(&bits, "log2_min_luma_coding_block_size_minus3") + 3
        log2DiffMaxMinCodingBlockSize = try Self.value(&bits, "log2_diff_max_min_luma_coding_block_size")
        log2MinTransformBlockSize = try Self.value(&bits, "log2_min_luma_transform_block_size_minus2") + 2
        log2DiffMaxMinTransformBlockSize = try Self.value(&bits, "log2_diff_max_min_luma_transform_block_size")
        maxTransformHierarchyDepthInter = try Self.value(&bits, "max_transform_hierarchy_depth_inter")
        maxTransformHierarchyDepthIntra = try Self.value(&bits, "max_transform_hierarchy_depth_intra")
        guard log2MinCodingBlockSize + log2DiffMaxMinCodingBlockSize <= 6 else {
            throw Invalid(reason: "the coding block sizes (log2 \(log2MinCodingBlockSize) + \(log2DiffMaxMinCodingBlockSize)) exceed 64")
        }
        guard log2MinTransformBlockSize + log2DiffMaxMinTransformBlockSize <= 5 else {
            throw Invalid(reason: "the transform block sizes (log2 \(log2MinTransformBlockSize) + \(log2DiffMaxMinTransformBlockSize)) exceed 32")
        }
    }

    /// profile_tier_level(1, sps_max_sub_layers_minus1): the general profile and level (96 bits),
    /// then each sub-layer's presence flags, padding to 8 entries, and what they announce.
    private static func skipProfileTierLevel(_ bits: inout HEVCBitReader, maxSubLayers: Int) {
        bits.skip(96)
        var present: [(profile: Bool, level: Bool)] = []
        for _ in 1..<maxSubLayers { present.append((bits.flag(), bits.flag())) }
        if maxSubLayers > 1 { bits.skip(2 * (9 - maxSubLayers)) }
        for layer in present {
            if layer.profile { bits.skip(88) }
            if layer.level { bits.skip(8) }
        }
    }

    private static func value(_ bits: inout HEVCBitReader, _ field: String) throws(Invalid) -> Int {
        guard let value = bits.unsignedExpGolomb() else { throw Invalid(reason: "\(field) is not a valid ue(v) code") }
        return value
    }
}
