-- Argo CD health check for operator.ibm.com/OperandRegistry (odlm-render, health/), for
-- clusters that keep the ODLM controller. "Ready for Deployment" (no OperandRequest uses
-- the registry yet) and Running (requested) are Healthy; Failed is Degraded; Pending,
-- Initialized, Updating and "Waiting for CatalogSource being ready" are Progressing.
-- A True NotFound condition (e.g. a missing CatalogSource) is added to the message.
-- Uses only Lua's base and table libraries and checks every field's type.

local progressing = {
  Pending = true,
  Initialized = true,
  Updating = true,
  ["Waiting for CatalogSource being ready"] = true,
}

local function notFound(status)
  local out = {}
  for _, c in ipairs(conditions(status.conditions, "True")) do
    if str(c.type) == "NotFound" then
      local text = str(c.message)
      if text == "" then text = str(c.reason) end
      if text ~= "" then out[#out + 1] = text end
    end
  end
  return table.concat(out, "; ")
end

local function assess(obj)
  local status = tbl(obj.status)
  local phase = phaseOf(status)
  if phase == "" then
    return "Progressing", "Waiting for ODLM to reconcile the OperandRegistry"
  end
  local warning = notFound(status)

  if phase == "Failed" then
    return "Degraded", join(": ", "OperandRegistry failed", warning)
  end
  if phase == "Ready for Deployment" then
    return "Healthy", join("; ", "Ready for deployment; no OperandRequest uses it yet", warning)
  end
  if phase == "Running" then
    local names = keys(status.operatorsStatus) -- the requested operators
    local msg = "Running"
    if #names > 0 then msg = "Requested operators: " .. table.concat(names, ", ") end
    return "Healthy", join("; ", msg, warning)
  end
  if progressing[phase] then
    return "Progressing", join("; ", phase, warning)
  end
  return "Unknown", "Unrecognised OperandRegistry phase " .. phase
end
