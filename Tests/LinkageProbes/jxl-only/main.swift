// A program using PipelineCore and CodersJXL only; ProductLinkageTests reads what it links.
import CodersJXL
import PipelineCore

ImageCodersManager.shared.add(JXLCoder())
print(ImageCodersManager.shared.coders.count)
