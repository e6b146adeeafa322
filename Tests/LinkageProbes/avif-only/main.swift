// A program using PipelineCore and CodersAVIF only; ProductLinkageTests reads what it links.
import CodersAVIF
import PipelineCore

ImageCodersManager.shared.add(AVIFCoder())
print(ImageCodersManager.shared.coders.count)
