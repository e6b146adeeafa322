// A program using PipelineCore and CodersSVG only; ProductLinkageTests reads what it links.
import CodersSVG
import PipelineCore

ImageCodersManager.shared.add(SVGCoder())
print(ImageCodersManager.shared.coders.count)
