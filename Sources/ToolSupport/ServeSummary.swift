/// What `serve` is, in the tool's command list and in the service's own help.
package enum ServeSummary {
    package static let abstract = "Serve images over HTTP with imgproxy's URL grammar and signatures."
}
