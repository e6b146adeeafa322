extension HEVCSequenceParameterSet {
    /// The sanity checks libde265 1.0.11 makes once it has read a whole set
    /// (`seq_parameter_set::compute_derived_values`), in its order. It prints each failure on
    /// stderr ("SPS error: CB alignment") before refusing the set, with no switch to silence it,
    /// so a set failing one is refused here before libde265 sees it. The last two cannot fail
    /// after the reading checks; they are kept so that this mirrors the decoder whole.
    func checkDecodable() throws(Invalid) {
        let log2CodingTreeBlockSize = log2MinCodingBlockSize + log2DiffMaxMinCodingBlockSize
        let log2MaxTransformBlockSize = log2MinTransformBlockSize + log2DiffMaxMinTransformBlockSize
        let depthRoom = log2CodingTreeBlockSize - log2MinTransformBlockSize
        for (name, depth) in [("inter", maxTransformHierarchyDepthInter), ("intra", maxTransformHierarchyDepthIntra)] where depth > depthRoom {
            throw Invalid(
                reason: "max_transform_hierarchy_depth_\(name) \(depth) is more than the \(depthRoom) levels between "
                    + "the coding tree block (log2 \(log2CodingTreeBlockSize)) and the smallest transform block (log2 \(log2MinTransformBlockSize))")
        }
        let minCodingBlock = 1 << log2MinCodingBlockSize
        guard storedWidth % minCodingBlock == 0, storedHeight % minCodingBlock == 0 else {
            throw Invalid(reason: "the picture size \(storedWidth)x\(storedHeight) is not a multiple of the smallest coding block (\(minCodingBlock))")
        }
        guard log2MinTransformBlockSize <= log2MinCodingBlockSize else {
            throw Invalid(
                reason: "the smallest transform block (log2 \(log2MinTransformBlockSize)) is larger than "
                    + "the smallest coding block (log2 \(log2MinCodingBlockSize))")
        }
        guard log2MaxTransformBlockSize <= min(log2CodingTreeBlockSize, 5) else {
            throw Invalid(
                reason: "the largest transform block (log2 \(log2MaxTransformBlockSize)) is larger than 32 "
                    + "or the coding tree block (log2 \(log2CodingTreeBlockSize))")
        }
        guard (8...16).contains(bitDepthLuma), (8...16).contains(bitDepthChroma) else {
            throw Invalid(reason: "the bit depth (luma \(bitDepthLuma), chroma \(bitDepthChroma)) is not within 8 to 16")
        }
    }
}
