-- wrk script for the rating benchmark: POSTs ratings of the pooled papers in PAPERS (comma-
-- separated external ids) in turn, with the browser-session cookie (BROWSER) and CSRF token of
-- a page and a JSON answer, as the rating page's script does. Each pass over the papers gives other stars, so
-- every request changes a rating and commits.
local token = os.getenv("CSRF_TOKEN")
local cookie = "paperjudge_browser=" .. os.getenv("BROWSER")
local papers = {}
for paper in string.gmatch(os.getenv("PAPERS"), "[^,]+") do
    table.insert(papers, paper)
end
local count = 0
local threads = 0

-- Each wrk thread starts at another place in the sequence, so threads do not send the same
-- rating at the same moment.
setup = function(thread)
    threads = threads + 1
    thread:set("start", threads * 7919)
end

request = function()
    count = count + 1
    local n = count + (start or 0)
    local paper = papers[(n % #papers) + 1]
    local stars = (math.floor(n / #papers) % 5) + 1
    local body = "paper=" .. paper .. "&stars=" .. stars .. "&csrf_token=" .. token
    return wrk.format("POST", nil, {
        ["Content-Type"] = "application/x-www-form-urlencoded",
        ["Accept"] = "application/json",
        ["Cookie"] = cookie,
    }, body)
end
