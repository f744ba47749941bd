(module
 (type $0 (func (result i32)))
 (type $1 (func (param i32 i32 i32 i32) (result i32)))
 (memory $0 1)
 (export "resultPtr" (func $wasm/assembly/diff_scan/resultPtr))
 (export "inputPtr" (func $wasm/assembly/diff_scan/inputPtr))
 (export "scanHunk" (func $wasm/assembly/diff_scan/scanHunk))
 (export "memory" (memory $0))
 (func $wasm/assembly/diff_scan/scanHunk (param $0 i32) (param $1 i32) (param $2 i32) (param $3 i32) (result i32)
  (local $4 i32)
  (local $5 i32)
  (local $6 i32)
  (local $7 i64)
  (local $8 i32)
  (local $9 i32)
  (local $10 i32)
  block $folding-inner2
   block $folding-inner1
    block $folding-inner0
     loop $while-continue|0
      local.get $3
      i32.const 0
      i32.gt_s
      local.get $2
      i32.const 0
      i32.gt_s
      i32.or
      if
       local.get $0
       local.get $1
       i32.le_s
       br_if $folding-inner0
       local.get $1
       local.set $4
       block $wasm/assembly/diff_scan/findLf|inlined.0
        loop $while-continue|1
         local.get $4
         i32.const 8
         i32.add
         local.tee $5
         local.get $0
         i32.le_s
         if
          local.get $4
          local.get $4
          i32.const 1040
          i32.add
          i64.load
          i64.const 723401728380766730
          i64.xor
          local.tee $7
          i64.const 72340172838076673
          i64.sub
          local.get $7
          i64.const -1
          i64.xor
          i64.and
          i64.const -9187201950435737472
          i64.and
          local.tee $7
          i64.ctz
          i64.const 3
          i64.shr_u
          i32.wrap_i64
          i32.add
          local.set $4
          local.get $7
          i64.const 0
          i64.ne
          br_if $wasm/assembly/diff_scan/findLf|inlined.0
          local.get $5
          local.set $4
          br $while-continue|1
         end
        end
        loop $while-continue|2
         local.get $0
         local.get $4
         i32.gt_s
         if
          local.get $4
          i32.const 1040
          i32.add
          i32.load8_u
          i32.const 10
          i32.eq
          br_if $wasm/assembly/diff_scan/findLf|inlined.0
          local.get $4
          i32.const 1
          i32.add
          local.set $4
          br $while-continue|2
         end
        end
        local.get $0
        local.set $4
       end
       local.get $0
       local.get $4
       i32.le_s
       br_if $folding-inner0
       local.get $1
       i32.const 1040
       i32.add
       i32.load8_u
       local.tee $5
       i32.const 45
       i32.eq
       if
        local.get $2
        i32.const 1
        i32.sub
        local.set $2
        local.get $8
        i32.const 1
        i32.add
        local.set $8
       else
        local.get $5
        i32.const 43
        i32.eq
        if
         local.get $3
         i32.const 1
         i32.sub
         local.set $3
         local.get $9
         i32.const 1
         i32.add
         local.set $9
        else
         local.get $5
         i32.const 10
         i32.eq
         local.get $5
         i32.const 32
         i32.eq
         i32.or
         if (result i32)
          local.get $3
          i32.const 1
          i32.sub
          local.set $3
          local.get $2
          i32.const 1
          i32.sub
         else
          local.get $5
          i32.const 92
          i32.eq
          if
           local.get $10
           if (result i32)
            local.get $4
            i32.const 1
            i32.add
            local.get $1
            i32.sub
            i32.const 12
            i32.lt_s
           else
            i32.const 1
           end
           if (result i32)
            i32.const 1
           else
            local.get $1
            i32.const 1040
            i32.add
            i32.load8_u offset=1
            i32.const 32
            i32.ne
           end
           br_if $folding-inner1
           i32.const 0
           local.set $10
           local.get $6
           i32.const 1
           i32.add
           local.set $6
           local.get $4
           i32.const 1
           i32.add
           local.set $1
           br $while-continue|0
          else
           br $folding-inner2
          end
          unreachable
         end
         local.set $2
        end
       end
       local.get $2
       local.get $3
       i32.or
       i32.const 0
       i32.lt_s
       br_if $folding-inner2
       i32.const 1
       local.set $10
       local.get $6
       i32.const 1
       i32.add
       local.set $6
       local.get $4
       i32.const 1
       i32.add
       local.set $1
       br $while-continue|0
      end
     end
     i32.const 1024
     local.get $0
     local.get $1
     i32.gt_s
     local.get $10
     i32.and
     if (result i32)
      local.get $1
      i32.const 1040
      i32.add
      i32.load8_u
      i32.const 92
      i32.eq
     else
      i32.const 0
     end
     if (result i32)
      local.get $1
      local.set $2
      block $wasm/assembly/diff_scan/findLf|inlined.1
       loop $while-continue|3
        local.get $2
        i32.const 8
        i32.add
        local.tee $3
        local.get $0
        i32.le_s
        if
         local.get $2
         local.get $2
         i32.const 1040
         i32.add
         i64.load
         i64.const 723401728380766730
         i64.xor
         local.tee $7
         i64.const 72340172838076673
         i64.sub
         local.get $7
         i64.const -1
         i64.xor
         i64.and
         i64.const -9187201950435737472
         i64.and
         local.tee $7
         i64.ctz
         i64.const 3
         i64.shr_u
         i32.wrap_i64
         i32.add
         local.set $2
         local.get $7
         i64.const 0
         i64.ne
         br_if $wasm/assembly/diff_scan/findLf|inlined.1
         local.get $3
         local.set $2
         br $while-continue|3
        end
       end
       loop $while-continue|4
        local.get $0
        local.get $2
        i32.gt_s
        if
         local.get $2
         i32.const 1040
         i32.add
         i32.load8_u
         i32.const 10
         i32.eq
         br_if $wasm/assembly/diff_scan/findLf|inlined.1
         local.get $2
         i32.const 1
         i32.add
         local.set $2
         br $while-continue|4
        end
       end
       local.get $0
       local.set $2
      end
      local.get $0
      local.get $2
      i32.const 1
      i32.add
      local.get $0
      local.get $2
      i32.le_s
      select
      local.tee $0
      local.get $1
      i32.sub
      i32.const 12
      i32.lt_s
      if (result i32)
       i32.const 1
      else
       local.get $1
       i32.const 1040
       i32.add
       i32.load8_u offset=1
       i32.const 32
       i32.ne
      end
      br_if $folding-inner1
      local.get $6
      i32.const 1
      i32.add
      local.set $6
      local.get $0
     else
      local.get $1
     end
     i32.store
     i32.const 1028
     local.get $6
     i32.store
     i32.const 1032
     local.get $9
     i32.store
     i32.const 1036
     local.get $8
     i32.store
     i32.const 0
     return
    end
    i32.const 1024
    local.get $1
    i32.store
    i32.const 1028
    local.get $6
    i32.store
    i32.const 1032
    local.get $9
    i32.store
    i32.const 1036
    local.get $8
    i32.store
    i32.const 2
    return
   end
   i32.const 1024
   local.get $1
   i32.store
   i32.const 1028
   local.get $6
   i32.store
   i32.const 1032
   local.get $9
   i32.store
   i32.const 1036
   local.get $8
   i32.store
   i32.const 3
   return
  end
  i32.const 1024
  local.get $1
  i32.store
  i32.const 1028
  local.get $6
  i32.store
  i32.const 1032
  local.get $9
  i32.store
  i32.const 1036
  local.get $8
  i32.store
  i32.const 1
 )
 (func $wasm/assembly/diff_scan/resultPtr (result i32)
  i32.const 1024
 )
 (func $wasm/assembly/diff_scan/inputPtr (result i32)
  i32.const 1040
 )
)
