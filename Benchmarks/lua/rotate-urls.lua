-- wrk script: each request takes the next path from the file named after `--`, one per line, so a
-- run rotates over every source (no cache can answer them all). Threads start at different offsets.
local paths = {}
local index = 0
local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("offset", counter * 37)
end

function init(args)
  for line in io.lines(args[1]) do paths[#paths + 1] = line end
  index = (offset or 0) % #paths
end

function request()
  index = index % #paths + 1
  return wrk.format("GET", paths[index])
end
