-- Mixed load for bench/mixed-load.ts: cycles through the paths given after `--`, one request per
-- path in turn across the thread's connections.
--   wrk -t1 -c16 -d60s --latency -s bench/wrk/mixed.lua http://127.0.0.1:8080 -- /api/citable /api/stat/x
-- wrk passes init() the URL at index 0 and the arguments after `--` from index 1 (ipairs skips 0).
local paths = {}
local i = 0

function init(args)
  for _, p in ipairs(args) do
    paths[#paths + 1] = p
  end
  if #paths == 0 then
    paths[1] = "/"
  end
end

function request()
  i = i + 1
  return wrk.format(nil, paths[(i - 1) % #paths + 1])
end
