// A program using PipelineCore and CodersHEIF only; ProductLinkageTests reads what it links.
import CodersHEIF
import PipelineCore

ImageCodersManager.shared.add(HEIFCoder())
print(ImageCodersManager.shared.coders.count)
