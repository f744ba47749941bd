(module
 (type $0 (func (param i32 i32 i32) (result i32)))
 (type $1 (func (result i32)))
 (type $2 (func (param i32) (result i32)))
 (type $3 (func (param i32 i32 i32 i32) (result i32)))
 (type $4 (func (param i32 i32 i32 i32)))
 (type $5 (func (param i32 i32) (result i32)))
 (type $6 (func (param i32 i32)))
 (type $7 (func (param i32)))
 (global $wasm/assembly/glob_match/programBase (mut i32) (i32.const 0))
 (global $wasm/assembly/glob_match/inputBase (mut i32) (i32.const 0))
 (global $wasm/assembly/glob_match/resultBase (mut i32) (i32.const 0))
 (global $wasm/assembly/glob_match/scratchBase (mut i32) (i32.const 0))
 (global $wasm/assembly/glob_match/table (mut i32) (i32.const 0))
 (global $wasm/assembly/glob_match/cpValue (mut i32) (i32.const 0))
 (global $wasm/assembly/glob_match/cpLength (mut i32) (i32.const 1))
 (memory $0 0)
 (export "reserve" (func $wasm/assembly/glob_match/reserve))
 (export "programPtr" (func $wasm/assembly/glob_match/programPtr))
 (export "inputPtr" (func $wasm/assembly/glob_match/inputPtr))
 (export "resultPtr" (func $wasm/assembly/glob_match/resultPtr))
 (export "loadProgram" (func $wasm/assembly/glob_match/loadProgram))
 (export "lastMatch" (func $wasm/assembly/glob_match/lastMatch))
 (export "matchBatch" (func $wasm/assembly/glob_match/matchBatch))
 (export "memory" (memory $0))
 (func $wasm/assembly/glob_match/litFind (param $0 i32) (param $1 i32) (param $2 i32) (param $3 i32) (result i32)
  (local $4 i32)
  (local $5 i64)
  (local $6 i32)
  (local $7 i64)
  local.get $1
  i32.eqz
  if
   local.get $2
   return
  end
  global.get $wasm/assembly/glob_match/programBase
  local.get $0
  i32.const 2
  i32.shl
  i32.add
  i32.load
  local.set $6
  loop $while-continue|0
   local.get $1
   local.get $2
   i32.add
   local.get $3
   i32.le_u
   if
    local.get $6
    i32.const 255
    i32.and
    i64.extend_i32_s
    i64.const 72340172838076673
    i64.mul
    local.set $5
    block $__inlined_func$wasm/assembly/glob_match/findByte
     loop $while-continue|00
      local.get $2
      i32.const 8
      i32.add
      local.get $3
      i32.le_u
      if
       local.get $2
       i64.load
       local.get $5
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
       i64.const 0
       i64.ne
       if
        local.get $2
        local.get $7
        i64.ctz
        i64.const 3
        i64.shr_u
        i32.wrap_i64
        i32.add
        local.set $2
        br $__inlined_func$wasm/assembly/glob_match/findByte
       end
       local.get $2
       i32.const 8
       i32.add
       local.set $2
       br $while-continue|00
      end
     end
     loop $while-continue|1
      local.get $2
      local.get $3
      i32.lt_u
      if
       local.get $2
       i32.load8_u
       local.get $6
       i32.eq
       br_if $__inlined_func$wasm/assembly/glob_match/findByte
       local.get $2
       i32.const 1
       i32.add
       local.set $2
       br $while-continue|1
      end
     end
     local.get $3
     local.set $2
    end
    local.get $2
    local.tee $4
    local.get $1
    i32.add
    local.get $3
    i32.gt_u
    if
     i32.const -1
     return
    end
    i32.const 0
    local.set $2
    block $__inlined_func$wasm/assembly/glob_match/litAt (result i32)
     i32.const 0
     local.get $1
     local.get $4
     i32.add
     local.get $3
     i32.gt_u
     br_if $__inlined_func$wasm/assembly/glob_match/litAt
     drop
     loop $for-loop|0
      local.get $1
      local.get $2
      i32.gt_s
      if
       i32.const 0
       local.get $2
       local.get $4
       i32.add
       i32.load8_u
       global.get $wasm/assembly/glob_match/programBase
       local.get $0
       local.get $2
       i32.add
       i32.const 2
       i32.shl
       i32.add
       i32.load
       i32.ne
       br_if $__inlined_func$wasm/assembly/glob_match/litAt
       drop
       local.get $2
       i32.const 1
       i32.add
       local.set $2
       br $for-loop|0
      end
     end
     i32.const 1
    end
    if
     local.get $4
     return
    end
    local.get $4
    i32.const 1
    i32.add
    local.set $2
    br $while-continue|0
   end
  end
  i32.const -1
 )
 (func $wasm/assembly/glob_match/nonAsciiForward (param $0 i32) (param $1 i32) (param $2 i32) (param $3 i32)
  (local $4 i32)
  (local $5 i32)
  (local $6 i32)
  (local $7 i32)
  (local $8 i32)
  (local $9 i32)
  (local $10 i32)
  loop $for-loop|0
   local.get $3
   local.get $4
   i32.gt_s
   if
    local.get $2
    local.get $4
    i32.const 2
    i32.shl
    i32.add
    i32.const 0
    i32.store
    local.get $4
    i32.const 1
    i32.add
    local.set $4
    br $for-loop|0
   end
  end
  global.get $wasm/assembly/glob_match/programBase
  local.get $0
  i32.const 1
  i32.add
  i32.const 2
  i32.shl
  i32.add
  i32.load
  local.set $6
  global.get $wasm/assembly/glob_match/programBase
  local.get $0
  i32.const 3
  i32.add
  i32.const 2
  i32.shl
  i32.add
  i32.load
  local.set $7
  i32.const 0
  local.set $0
  loop $for-loop|1
   local.get $0
   local.get $6
   i32.lt_s
   if
    i32.const 0
    local.set $3
    global.get $wasm/assembly/glob_match/programBase
    local.get $7
    local.get $0
    i32.const 3
    i32.mul
    i32.add
    local.tee $4
    i32.const 2
    i32.shl
    i32.add
    i32.load
    local.tee $5
    i32.const 1
    i32.eq
    if (result i32)
     local.get $1
     global.get $wasm/assembly/glob_match/programBase
     local.get $4
     i32.const 1
     i32.add
     i32.const 2
     i32.shl
     i32.add
     i32.load
     i32.eq
    else
     local.get $5
     i32.const 2
     i32.eq
     if (result i32)
      i32.const 1
     else
      local.get $5
      i32.const 4
      i32.eq
      local.get $5
      i32.const 3
      i32.eq
      i32.or
      if (result i32)
       global.get $wasm/assembly/glob_match/programBase
       local.get $4
       i32.const 1
       i32.add
       i32.const 2
       i32.shl
       i32.add
       i32.load
       local.set $8
       global.get $wasm/assembly/glob_match/programBase
       local.get $4
       i32.const 2
       i32.add
       i32.const 2
       i32.shl
       i32.add
       i32.load
       local.set $9
       i32.const 0
       local.set $4
       loop $for-loop|2
        local.get $4
        local.get $9
        i32.lt_s
        if
         block $for-break2
          local.get $1
          global.get $wasm/assembly/glob_match/programBase
          local.get $8
          local.get $4
          i32.const 1
          i32.shl
          i32.add
          local.tee $10
          i32.const 2
          i32.shl
          i32.add
          i32.load
          i32.ge_s
          if (result i32)
           local.get $1
           global.get $wasm/assembly/glob_match/programBase
           local.get $10
           i32.const 1
           i32.add
           i32.const 2
           i32.shl
           i32.add
           i32.load
           i32.le_s
          else
           i32.const 0
          end
          if
           i32.const 1
           local.set $3
           br $for-break2
          end
          local.get $4
          i32.const 1
          i32.add
          local.set $4
          br $for-loop|2
         end
        end
       end
       local.get $3
       i32.eqz
       local.get $3
       local.get $5
       i32.const 4
       i32.eq
       select
      else
       i32.const 0
      end
     end
    end
    if
     local.get $2
     local.get $0
     i32.const 5
     i32.shr_u
     i32.const 2
     i32.shl
     i32.add
     local.tee $3
     local.get $3
     i32.load
     i32.const 1
     local.get $0
     i32.shl
     i32.or
     i32.store
    end
    local.get $0
    i32.const 1
    i32.add
    local.set $0
    br $for-loop|1
   end
  end
 )
 (func $wasm/assembly/glob_match/lastMatchRange (param $0 i32) (param $1 i32) (result i32)
  (local $2 i32)
  (local $3 i32)
  (local $4 i32)
  (local $5 i32)
  (local $6 i32)
  (local $7 i32)
  (local $8 i32)
  (local $9 i32)
  (local $10 i32)
  (local $11 i32)
  (local $12 i32)
  (local $13 i32)
  (local $14 i32)
  (local $15 i32)
  global.get $wasm/assembly/glob_match/programBase
  i32.load
  i32.const 1
  i32.sub
  local.set $14
  loop $for-loop|0
   local.get $14
   i32.const 0
   i32.ge_s
   if
    local.get $14
    local.get $0
    local.get $1
    call $wasm/assembly/glob_match/decide
    local.tee $2
    i32.const 1
    i32.eq
    if
     local.get $14
     return
    end
    local.get $2
    if
     global.get $wasm/assembly/glob_match/programBase
     global.get $wasm/assembly/glob_match/programBase
     local.get $14
     i32.const 1
     i32.add
     i32.const 2
     i32.shl
     i32.add
     i32.load
     local.tee $13
     i32.const 2
     i32.add
     i32.const 2
     i32.shl
     i32.add
     i32.load
     i32.const 1
     i32.eq
     if (result i32)
      global.get $wasm/assembly/glob_match/programBase
      local.get $13
      i32.const 2
      i32.shl
      i32.add
      i32.load
      i32.const 2
      i32.and
      i32.const 0
      i32.ne
      local.set $10
      global.get $wasm/assembly/glob_match/programBase
      local.get $13
      i32.const 4
      i32.add
      local.tee $2
      i32.const 2
      i32.shl
      i32.add
      i32.load
      local.set $3
      global.get $wasm/assembly/glob_match/programBase
      local.get $2
      i32.const 1
      i32.add
      i32.const 2
      i32.shl
      i32.add
      i32.load
      local.set $12
      global.get $wasm/assembly/glob_match/programBase
      local.get $2
      i32.const 2
      i32.add
      i32.const 2
      i32.shl
      i32.add
      i32.load
      local.set $11
      global.get $wasm/assembly/glob_match/programBase
      local.get $2
      i32.const 3
      i32.add
      i32.const 2
      i32.shl
      i32.add
      i32.load
      local.set $9
      global.get $wasm/assembly/glob_match/programBase
      local.get $2
      i32.const 4
      i32.add
      i32.const 2
      i32.shl
      i32.add
      i32.load
      local.set $8
      local.get $2
      i32.const 5
      i32.add
      local.tee $7
      i32.const 128
      i32.add
      local.set $6
      local.get $0
      local.set $4
      block $__inlined_func$wasm/assembly/glob_match/runOneWord$1 (result i32)
       loop $while-continue|0
        local.get $1
        local.get $4
        i32.gt_u
        if
         local.get $11
         local.get $4
         i32.load8_u
         local.tee $2
         i32.const 128
         i32.lt_u
         if (result i32)
          i32.const 1
          local.get $2
          i32.const 47
          i32.eq
          local.get $3
          local.get $12
          i32.and
          i32.const 0
          i32.ne
          i32.and
          br_if $__inlined_func$wasm/assembly/glob_match/runOneWord$1
          drop
          global.get $wasm/assembly/glob_match/programBase
          local.get $2
          local.get $7
          i32.add
          i32.const 2
          i32.shl
          i32.add
          i32.load
          local.set $15
          local.get $4
          i32.const 1
          i32.add
          local.set $4
          global.get $wasm/assembly/glob_match/programBase
          local.get $2
          local.get $6
          i32.add
          i32.const 2
          i32.shl
          i32.add
          i32.load
         else
          local.get $4
          local.get $1
          call $wasm/assembly/glob_match/decode
          local.get $4
          global.get $wasm/assembly/glob_match/cpLength
          i32.add
          local.set $4
          local.get $13
          global.get $wasm/assembly/glob_match/cpValue
          global.get $wasm/assembly/glob_match/scratchBase
          i32.const 1
          call $wasm/assembly/glob_match/nonAsciiForward
          global.get $wasm/assembly/glob_match/scratchBase
          i32.load
          local.set $15
          local.get $8
         end
         local.get $3
         i32.and
         local.tee $5
         local.get $9
         i32.and
         local.get $3
         local.get $15
         i32.and
         i32.const 1
         i32.shl
         i32.or
         local.tee $3
         i32.and
         if
          loop $while-continue|1
           local.get $3
           local.get $3
           local.get $11
           i32.and
           i32.const 1
           i32.shl
           i32.or
           local.tee $2
           local.get $3
           i32.ne
           if
            local.get $2
            local.set $3
            br $while-continue|1
           end
          end
         end
         i32.const 0
         local.get $3
         local.get $5
         i32.or
         local.tee $3
         i32.eqz
         br_if $__inlined_func$wasm/assembly/glob_match/runOneWord$1
         drop
         br $while-continue|0
        end
       end
       local.get $10
       i32.eqz
       local.get $3
       local.get $12
       i32.and
       i32.const 0
       i32.ne
       i32.and
      end
     else
      local.get $13
      local.get $0
      local.get $1
      call $wasm/assembly/glob_match/runWords
     end
     if
      local.get $14
      return
     end
    end
    local.get $14
    i32.const 1
    i32.sub
    local.set $14
    br $for-loop|0
   end
  end
  i32.const -1
 )
 (func $wasm/assembly/glob_match/decode (param $0 i32) (param $1 i32)
  (local $2 i32)
  (local $3 i32)
  (local $4 i32)
  block $folding-inner0
   local.get $0
   i32.load8_u
   local.tee $2
   i32.const 223
   i32.le_u
   local.get $2
   i32.const 194
   i32.ge_u
   i32.and
   if (result i32)
    i32.const 1
    local.set $3
    local.get $2
    i32.const 31
    i32.and
   else
    local.get $2
    i32.const 239
    i32.le_u
    local.get $2
    i32.const 224
    i32.ge_u
    i32.and
    if (result i32)
     i32.const 2
     local.set $3
     local.get $2
     i32.const 15
     i32.and
    else
     local.get $2
     i32.const 244
     i32.le_u
     local.get $2
     i32.const 240
     i32.ge_u
     i32.and
     i32.eqz
     br_if $folding-inner0
     i32.const 3
     local.set $3
     local.get $2
     i32.const 7
     i32.and
    end
   end
   local.set $2
   local.get $0
   local.get $3
   i32.add
   local.get $1
   i32.const 1
   i32.add
   i32.ge_u
   br_if $folding-inner0
   i32.const 1
   local.set $1
   loop $for-loop|0
    local.get $1
    local.get $3
    i32.le_s
    if
     local.get $0
     local.get $1
     i32.add
     i32.load8_u
     local.tee $4
     i32.const 192
     i32.and
     i32.const 128
     i32.ne
     br_if $folding-inner0
     local.get $4
     i32.const 63
     i32.and
     local.get $2
     i32.const 6
     i32.shl
     i32.or
     local.set $2
     local.get $1
     i32.const 1
     i32.add
     local.set $1
     br $for-loop|0
    end
   end
   local.get $2
   global.set $wasm/assembly/glob_match/cpValue
   local.get $3
   i32.const 1
   i32.add
   global.set $wasm/assembly/glob_match/cpLength
   return
  end
  i32.const 65533
  global.set $wasm/assembly/glob_match/cpValue
  i32.const 1
  global.set $wasm/assembly/glob_match/cpLength
 )
 (func $wasm/assembly/glob_match/runWords (param $0 i32) (param $1 i32) (param $2 i32) (result i32)
  (local $3 i32)
  (local $4 i32)
  (local $5 i32)
  (local $6 i32)
  (local $7 i32)
  (local $8 i32)
  (local $9 i32)
  (local $10 i32)
  (local $11 i32)
  (local $12 i32)
  (local $13 i32)
  (local $14 i32)
  (local $15 i32)
  (local $16 i32)
  (local $17 i32)
  (local $18 i32)
  (local $19 i32)
  (local $20 i32)
  global.get $wasm/assembly/glob_match/programBase
  local.get $0
  i32.const 2
  i32.shl
  i32.add
  i32.load
  i32.const 2
  i32.and
  i32.const 0
  i32.ne
  global.get $wasm/assembly/glob_match/programBase
  local.get $0
  i32.const 2
  i32.add
  i32.const 2
  i32.shl
  i32.add
  i32.load
  local.tee $18
  local.get $0
  i32.const 4
  i32.add
  local.tee $5
  i32.add
  local.set $13
  local.get $5
  local.get $18
  i32.const 1
  i32.shl
  i32.add
  local.set $9
  local.get $5
  local.get $18
  i32.const 3
  i32.mul
  i32.add
  local.set $8
  local.get $18
  i32.const 2
  i32.shl
  local.tee $11
  local.get $5
  i32.add
  local.set $4
  local.get $5
  local.get $18
  i32.const 5
  i32.mul
  i32.add
  local.tee $7
  local.get $18
  i32.const 7
  i32.shl
  i32.add
  local.set $6
  local.get $11
  global.get $wasm/assembly/glob_match/scratchBase
  local.tee $17
  i32.add
  local.tee $15
  local.get $11
  i32.add
  local.tee $12
  local.get $11
  i32.add
  local.set $14
  loop $for-loop|0
   local.get $3
   local.get $18
   i32.lt_s
   if
    local.get $17
    local.get $3
    i32.const 2
    i32.shl
    i32.add
    global.get $wasm/assembly/glob_match/programBase
    local.get $3
    local.get $5
    i32.add
    i32.const 2
    i32.shl
    i32.add
    i32.load
    i32.store
    local.get $3
    i32.const 1
    i32.add
    local.set $3
    br $for-loop|0
   end
  end
  loop $while-continue|1
   local.get $1
   local.get $2
   i32.lt_u
   if
    local.get $1
    i32.load8_u
    local.tee $3
    i32.const 128
    i32.lt_u
    if (result i32)
     local.get $3
     i32.const 47
     i32.eq
     if
      i32.const 0
      local.set $5
      loop $for-loop|2
       local.get $5
       local.get $18
       i32.lt_s
       if
        local.get $17
        local.get $5
        i32.const 2
        i32.shl
        i32.add
        i32.load
        global.get $wasm/assembly/glob_match/programBase
        local.get $5
        local.get $13
        i32.add
        i32.const 2
        i32.shl
        i32.add
        i32.load
        i32.and
        if
         i32.const 1
         return
        end
        local.get $5
        i32.const 1
        i32.add
        local.set $5
        br $for-loop|2
       end
      end
     end
     i32.const 0
     local.set $5
     loop $for-loop|3
      local.get $5
      local.get $18
      i32.lt_s
      if
       local.get $14
       local.get $5
       i32.const 2
       i32.shl
       i32.add
       global.get $wasm/assembly/glob_match/programBase
       local.get $7
       local.get $3
       local.get $18
       i32.mul
       i32.add
       local.get $5
       i32.add
       i32.const 2
       i32.shl
       i32.add
       i32.load
       i32.store
       local.get $5
       i32.const 1
       i32.add
       local.set $5
       br $for-loop|3
      end
     end
     local.get $6
     local.get $3
     local.get $18
     i32.mul
     i32.add
     local.set $5
     local.get $1
     i32.const 1
     i32.add
    else
     local.get $1
     local.get $2
     call $wasm/assembly/glob_match/decode
     local.get $0
     global.get $wasm/assembly/glob_match/cpValue
     local.get $14
     local.get $18
     call $wasm/assembly/glob_match/nonAsciiForward
     local.get $4
     local.set $5
     local.get $1
     global.get $wasm/assembly/glob_match/cpLength
     i32.add
    end
    local.set $1
    i32.const 0
    local.set $16
    i32.const 0
    local.set $3
    loop $for-loop|4
     local.get $3
     local.get $18
     i32.lt_s
     if
      local.get $3
      i32.const 2
      i32.shl
      local.tee $11
      local.get $17
      i32.add
      i32.load
      local.tee $19
      global.get $wasm/assembly/glob_match/programBase
      local.get $3
      local.get $5
      i32.add
      i32.const 2
      i32.shl
      i32.add
      i32.load
      i32.and
      local.set $20
      local.get $11
      local.get $12
      i32.add
      local.get $20
      i32.store
      local.get $11
      local.get $15
      i32.add
      local.get $20
      global.get $wasm/assembly/glob_match/programBase
      local.get $3
      local.get $8
      i32.add
      i32.const 2
      i32.shl
      i32.add
      i32.load
      i32.and
      local.get $16
      local.get $19
      local.get $11
      local.get $14
      i32.add
      i32.load
      i32.and
      local.tee $11
      i32.const 1
      i32.shl
      i32.or
      i32.or
      i32.store
      local.get $11
      i32.const 31
      i32.shr_u
      local.set $16
      local.get $3
      i32.const 1
      i32.add
      local.set $3
      br $for-loop|4
     end
    end
    loop $while-continue|5
     i32.const 0
     local.set $3
     i32.const 0
     local.set $16
     i32.const 0
     local.set $5
     loop $for-loop|6
      local.get $5
      local.get $18
      i32.lt_s
      if
       local.get $16
       local.get $15
       local.get $5
       i32.const 2
       i32.shl
       i32.add
       local.tee $19
       i32.load
       local.tee $11
       global.get $wasm/assembly/glob_match/programBase
       local.get $5
       local.get $9
       i32.add
       i32.const 2
       i32.shl
       i32.add
       i32.load
       i32.and
       local.tee $16
       i32.const 1
       i32.shl
       local.get $11
       i32.or
       i32.or
       local.set $20
       local.get $16
       i32.const 31
       i32.shr_u
       local.set $16
       local.get $11
       local.get $20
       i32.ne
       if
        local.get $19
        local.get $20
        i32.store
        i32.const 1
        local.set $3
       end
       local.get $5
       i32.const 1
       i32.add
       local.set $5
       br $for-loop|6
      end
     end
     local.get $3
     br_if $while-continue|5
    end
    i32.const 0
    local.set $3
    i32.const 0
    local.set $5
    loop $for-loop|7
     local.get $5
     local.get $18
     i32.lt_s
     if
      local.get $5
      i32.const 2
      i32.shl
      local.tee $11
      local.get $12
      i32.add
      i32.load
      local.get $11
      local.get $15
      i32.add
      i32.load
      i32.or
      local.set $16
      local.get $11
      local.get $17
      i32.add
      local.get $16
      i32.store
      local.get $3
      local.get $16
      i32.or
      local.set $3
      local.get $5
      i32.const 1
      i32.add
      local.set $5
      br $for-loop|7
     end
    end
    local.get $3
    i32.eqz
    if
     i32.const 0
     return
    end
    br $while-continue|1
   end
  end
  if
   i32.const 0
   return
  end
  i32.const 0
  local.set $0
  loop $for-loop|8
   local.get $0
   local.get $18
   i32.lt_s
   if
    local.get $17
    local.get $0
    i32.const 2
    i32.shl
    i32.add
    i32.load
    global.get $wasm/assembly/glob_match/programBase
    local.get $0
    local.get $13
    i32.add
    i32.const 2
    i32.shl
    i32.add
    i32.load
    i32.and
    if
     i32.const 1
     return
    end
    local.get $0
    i32.const 1
    i32.add
    local.set $0
    br $for-loop|8
   end
  end
  i32.const 0
 )
 (func $wasm/assembly/glob_match/resultPtr (result i32)
  global.get $wasm/assembly/glob_match/resultBase
 )
 (func $wasm/assembly/glob_match/reserve (param $0 i32) (param $1 i32) (param $2 i32) (result i32)
  i32.const 1024
  global.set $wasm/assembly/glob_match/programBase
  local.get $0
  i32.const 2
  i32.shl
  i32.const 1039
  i32.add
  i32.const -16
  i32.and
  global.set $wasm/assembly/glob_match/inputBase
  global.get $wasm/assembly/glob_match/inputBase
  local.get $1
  i32.add
  i32.const 19
  i32.add
  i32.const -16
  i32.and
  global.set $wasm/assembly/glob_match/resultBase
  global.get $wasm/assembly/glob_match/resultBase
  local.get $2
  i32.const 2
  i32.shl
  i32.add
  i32.const 15
  i32.add
  i32.const -16
  i32.and
  global.set $wasm/assembly/glob_match/scratchBase
  global.get $wasm/assembly/glob_match/scratchBase
  local.get $0
  i32.const 4
  i32.shl
  i32.add
  i32.const -64
  i32.sub
  local.tee $0
  memory.size
  i32.const 16
  i32.shl
  local.tee $1
  i32.gt_u
  if
   local.get $0
   local.get $1
   i32.sub
   i32.const 65535
   i32.add
   i32.const 16
   i32.shr_u
   memory.grow
   i32.const 0
   i32.lt_s
   if
    i32.const 0
    return
   end
  end
  i32.const 1
 )
 (func $wasm/assembly/glob_match/programPtr (result i32)
  global.get $wasm/assembly/glob_match/programBase
 )
 (func $wasm/assembly/glob_match/matchBatch (param $0 i32) (result i32)
  (local $1 i32)
  (local $2 i32)
  (local $3 i32)
  (local $4 i64)
  (local $5 i32)
  global.get $wasm/assembly/glob_match/inputBase
  local.get $0
  i32.add
  local.set $1
  global.get $wasm/assembly/glob_match/inputBase
  local.set $0
  loop $while-continue|0
   global.get $wasm/assembly/glob_match/resultBase
   local.get $3
   i32.const 2
   i32.shl
   i32.add
   local.get $0
   block $__inlined_func$wasm/assembly/glob_match/findByte$2
    loop $while-continue|00
     local.get $0
     i32.const 8
     i32.add
     local.get $1
     i32.le_u
     if
      local.get $0
      i64.load
      local.tee $4
      i64.const 72340172838076673
      i64.sub
      local.get $4
      i64.const -1
      i64.xor
      i64.and
      i64.const -9187201950435737472
      i64.and
      local.tee $4
      i64.const 0
      i64.ne
      if
       local.get $0
       local.get $4
       i64.ctz
       i64.const 3
       i64.shr_u
       i32.wrap_i64
       i32.add
       local.set $0
       br $__inlined_func$wasm/assembly/glob_match/findByte$2
      end
      local.get $0
      i32.const 8
      i32.add
      local.set $0
      br $while-continue|00
     end
    end
    loop $while-continue|1
     local.get $0
     local.get $1
     i32.lt_u
     if
      local.get $0
      i32.load8_u
      i32.eqz
      br_if $__inlined_func$wasm/assembly/glob_match/findByte$2
      local.get $0
      i32.const 1
      i32.add
      local.set $0
      br $while-continue|1
     end
    end
    local.get $1
    local.set $0
   end
   local.get $0
   call $wasm/assembly/glob_match/lastMatchRange
   i32.store
   local.get $3
   i32.const 1
   i32.add
   local.set $3
   local.get $0
   local.get $1
   i32.lt_u
   if
    local.get $0
    i32.const 1
    i32.add
    local.set $0
    br $while-continue|0
   end
  end
  local.get $3
 )
 (func $wasm/assembly/glob_match/loadProgram (param $0 i32)
  (local $1 i32)
  (local $2 i32)
  (local $3 i32)
  local.get $0
  global.set $wasm/assembly/glob_match/table
  global.get $wasm/assembly/glob_match/programBase
  i32.load
  local.set $3
  i32.const 1
  local.set $0
  loop $for-loop|0
   local.get $2
   local.get $3
   i32.lt_s
   if
    global.get $wasm/assembly/glob_match/programBase
    global.get $wasm/assembly/glob_match/programBase
    local.get $2
    i32.const 1
    i32.add
    i32.const 2
    i32.shl
    i32.add
    i32.load
    i32.const 2
    i32.add
    i32.const 2
    i32.shl
    i32.add
    i32.load
    local.tee $1
    local.get $0
    i32.gt_s
    if
     local.get $1
     local.set $0
    end
    local.get $2
    i32.const 1
    i32.add
    local.set $2
    br $for-loop|0
   end
  end
 )
 (func $wasm/assembly/glob_match/lastMatch (param $0 i32) (result i32)
  global.get $wasm/assembly/glob_match/inputBase
  global.get $wasm/assembly/glob_match/inputBase
  local.get $0
  i32.add
  call $wasm/assembly/glob_match/lastMatchRange
 )
 (func $wasm/assembly/glob_match/inputPtr (result i32)
  global.get $wasm/assembly/glob_match/inputBase
 )
 (func $wasm/assembly/glob_match/decide (param $0 i32) (param $1 i32) (param $2 i32) (result i32)
  (local $3 i32)
  (local $4 i32)
  (local $5 i32)
  (local $6 i32)
  global.get $wasm/assembly/glob_match/programBase
  global.get $wasm/assembly/glob_match/table
  local.get $0
  i32.const 3
  i32.shl
  i32.add
  local.tee $4
  i32.const 2
  i32.shl
  i32.add
  i32.load
  local.set $0
  global.get $wasm/assembly/glob_match/programBase
  local.get $4
  i32.const 1
  i32.add
  i32.const 2
  i32.shl
  i32.add
  i32.load
  i32.const 0
  i32.ne
  local.set $5
  global.get $wasm/assembly/glob_match/programBase
  local.get $4
  i32.const 2
  i32.add
  i32.const 2
  i32.shl
  i32.add
  i32.load
  local.set $3
  global.get $wasm/assembly/glob_match/programBase
  local.get $4
  i32.const 3
  i32.add
  i32.const 2
  i32.shl
  i32.add
  i32.load
  local.set $6
  block $folding-inner0
   local.get $0
   i32.const 1
   i32.eq
   if
    block $__inlined_func$wasm/assembly/glob_match/litAt$1 (result i32)
     i32.const 0
     local.get $1
     local.get $6
     i32.add
     local.get $2
     i32.gt_u
     br_if $__inlined_func$wasm/assembly/glob_match/litAt$1
     drop
     i32.const 0
     local.set $0
     loop $for-loop|0
      local.get $0
      local.get $6
      i32.lt_s
      if
       i32.const 0
       global.get $wasm/assembly/glob_match/programBase
       local.get $0
       local.get $3
       i32.add
       i32.const 2
       i32.shl
       i32.add
       i32.load
       local.get $0
       local.get $1
       i32.add
       i32.load8_u
       i32.ne
       br_if $__inlined_func$wasm/assembly/glob_match/litAt$1
       drop
       local.get $0
       i32.const 1
       i32.add
       local.set $0
       br $for-loop|0
      end
     end
     i32.const 1
    end
    i32.eqz
    br_if $folding-inner0
    local.get $1
    local.get $6
    i32.add
    local.tee $0
    local.get $2
    i32.eq
    if
     local.get $5
     i32.eqz
     return
    end
    local.get $0
    i32.load8_u
    i32.const 47
    i32.eq
    return
   end
   local.get $0
   i32.const 2
   i32.eq
   if
    local.get $1
    local.set $0
    loop $while-continue|0
     local.get $3
     local.get $6
     local.get $0
     local.get $2
     call $wasm/assembly/glob_match/litFind
     local.tee $0
     i32.const 0
     i32.lt_s
     br_if $folding-inner0
     local.get $0
     local.get $1
     i32.eq
     if (result i32)
      i32.const 1
     else
      local.get $0
      i32.const 1
      i32.sub
      i32.load8_u
      i32.const 47
      i32.eq
     end
     if
      local.get $0
      local.get $6
      i32.add
      local.tee $4
      local.get $2
      i32.lt_u
      if (result i32)
       local.get $4
       i32.load8_u
       i32.const 47
       i32.eq
      else
       i32.const 0
      end
      if
       i32.const 1
       return
      end
      local.get $5
      i32.eqz
      local.get $2
      local.get $4
      i32.eq
      i32.and
      if
       i32.const 1
       return
      end
     end
     local.get $0
     i32.const 1
     i32.add
     local.set $0
     br $while-continue|0
    end
    unreachable
   end
   local.get $0
   i32.const 3
   i32.eq
   if
    local.get $5
    i32.eqz
    local.get $2
    local.get $1
    i32.sub
    local.get $6
    i32.ge_u
    i32.and
    if (result i32)
     block $__inlined_func$wasm/assembly/glob_match/litAt$2 (result i32)
      i32.const 0
      local.get $2
      local.get $6
      i32.sub
      local.tee $4
      local.get $6
      i32.add
      local.get $2
      i32.gt_u
      br_if $__inlined_func$wasm/assembly/glob_match/litAt$2
      drop
      i32.const 0
      local.set $0
      loop $for-loop|00
       local.get $0
       local.get $6
       i32.lt_s
       if
        i32.const 0
        global.get $wasm/assembly/glob_match/programBase
        local.get $0
        local.get $3
        i32.add
        i32.const 2
        i32.shl
        i32.add
        i32.load
        local.get $0
        local.get $4
        i32.add
        i32.load8_u
        i32.ne
        br_if $__inlined_func$wasm/assembly/glob_match/litAt$2
        drop
        local.get $0
        i32.const 1
        i32.add
        local.set $0
        br $for-loop|00
       end
      end
      i32.const 1
     end
    else
     i32.const 0
    end
    if
     i32.const 1
     return
    end
    loop $while-continue|1
     local.get $3
     local.get $6
     local.get $1
     local.get $2
     call $wasm/assembly/glob_match/litFind
     local.tee $0
     i32.const 0
     i32.lt_s
     br_if $folding-inner0
     local.get $0
     local.get $6
     i32.add
     local.tee $1
     local.get $2
     i32.lt_u
     if (result i32)
      local.get $1
      i32.load8_u
      i32.const 47
      i32.eq
     else
      i32.const 0
     end
     if
      i32.const 1
      return
     else
      local.get $0
      i32.const 1
      i32.add
      local.set $1
      br $while-continue|1
     end
     unreachable
    end
    unreachable
   end
   local.get $0
   i32.const 6
   i32.eq
   local.get $0
   i32.const 4
   i32.eq
   i32.or
   if
    local.get $1
    local.set $0
    loop $while-continue|2
     local.get $3
     local.get $6
     local.get $0
     local.get $2
     call $wasm/assembly/glob_match/litFind
     local.tee $0
     i32.const 0
     i32.lt_s
     br_if $folding-inner0
     local.get $0
     local.get $1
     i32.eq
     if (result i32)
      i32.const 1
     else
      local.get $0
      i32.const 1
      i32.sub
      i32.load8_u
      i32.const 47
      i32.eq
     end
     if
      i32.const 1
      return
     else
      local.get $0
      i32.const 1
      i32.add
      local.set $0
      br $while-continue|2
     end
     unreachable
    end
    unreachable
   end
   local.get $0
   i32.const 5
   i32.eq
   if
    block $__inlined_func$wasm/assembly/glob_match/litAt$3 (result i32)
     i32.const 0
     local.get $1
     local.get $6
     i32.add
     local.get $2
     i32.gt_u
     br_if $__inlined_func$wasm/assembly/glob_match/litAt$3
     drop
     i32.const 0
     local.set $2
     loop $for-loop|02
      local.get $2
      local.get $6
      i32.lt_s
      if
       i32.const 0
       global.get $wasm/assembly/glob_match/programBase
       local.get $2
       local.get $3
       i32.add
       i32.const 2
       i32.shl
       i32.add
       i32.load
       local.get $1
       local.get $2
       i32.add
       i32.load8_u
       i32.ne
       br_if $__inlined_func$wasm/assembly/glob_match/litAt$3
       drop
       local.get $2
       i32.const 1
       i32.add
       local.set $2
       br $for-loop|02
      end
     end
     i32.const 1
    end
    return
   end
   global.get $wasm/assembly/glob_match/programBase
   local.get $4
   i32.const 4
   i32.add
   i32.const 2
   i32.shl
   i32.add
   i32.load
   local.set $3
   block $__inlined_func$wasm/assembly/glob_match/litAt$4 (result i32)
    i32.const 0
    global.get $wasm/assembly/glob_match/programBase
    local.get $4
    i32.const 5
    i32.add
    i32.const 2
    i32.shl
    i32.add
    i32.load
    local.tee $5
    local.get $1
    i32.add
    local.get $2
    i32.gt_u
    br_if $__inlined_func$wasm/assembly/glob_match/litAt$4
    drop
    i32.const 0
    local.set $0
    loop $for-loop|04
     local.get $0
     local.get $5
     i32.lt_s
     if
      i32.const 0
      global.get $wasm/assembly/glob_match/programBase
      local.get $0
      local.get $3
      i32.add
      i32.const 2
      i32.shl
      i32.add
      i32.load
      local.get $0
      local.get $1
      i32.add
      i32.load8_u
      i32.ne
      br_if $__inlined_func$wasm/assembly/glob_match/litAt$4
      drop
      local.get $0
      i32.const 1
      i32.add
      local.set $0
      br $for-loop|04
     end
    end
    i32.const 1
   end
   i32.eqz
   br_if $folding-inner0
   global.get $wasm/assembly/glob_match/programBase
   local.get $4
   i32.const 7
   i32.add
   i32.const 2
   i32.shl
   i32.add
   i32.load
   local.tee $0
   i32.const 0
   i32.gt_s
   if (result i32)
    global.get $wasm/assembly/glob_match/programBase
    local.get $4
    i32.const 6
    i32.add
    i32.const 2
    i32.shl
    i32.add
    i32.load
    local.get $0
    local.get $1
    local.get $2
    call $wasm/assembly/glob_match/litFind
    i32.const 0
    i32.lt_s
   else
    i32.const 0
   end
   br_if $folding-inner0
   i32.const -1
   return
  end
  i32.const 0
 )
)
